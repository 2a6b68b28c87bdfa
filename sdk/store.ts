/**
 * `gw/plugin/store`: what a store backend imports (`[store] url`'s scheme chooses it): the
 * Store contract and its result types, and the rules the built-in backends share.
 */
export type { BucketRow, HoldOptions, HoldVerdict, Store, WindowVerdict } from '../lib/store/types.ts';
export { defineStore } from '../lib/store/plugin.ts';
export type { StorePlugin, StoreSetup } from '../lib/store/plugin.ts';
export { fitBound, holdAdmits } from './hold-rule.ts';
export { KeyLocks } from './key-locks.ts';
