/** `gw/plugin/store`: a store backend's imports beside `gw/plugin` (where `Store` is). */
export type { BucketRow, HoldOptions, HoldVerdict, WindowVerdict } from '../lib/store/types.ts';
export { defineStore } from '../lib/store/plugin.ts';
export { fitBound, holdAdmits } from './hold-rule.ts';
export { KeyLocks } from './key-locks.ts';
