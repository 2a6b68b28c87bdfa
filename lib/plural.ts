/** `n` and `noun`, plural unless n is 1: `1 provider`, `0 models`, `2 extensions` (a regular plural: noun + s). */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
