/**
 * `gw/plugin/store`: what a store backend imports beside `gw/plugin` (where `Store` is): the
 * result types of the Store contract and the rules the built-in backends share.
 */
export type { BucketRow, HoldOptions, HoldVerdict, WindowVerdict } from '../lib/store/types.ts';
export { defineStore } from '../lib/store/plugin.ts';
export type { StoreSetup } from '../lib/store/plugin.ts';
export { fitBound, holdAdmits } from './hold-rule.ts';
export { KeyLocks } from './key-locks.ts';
