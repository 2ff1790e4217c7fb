// What another user may do with a file, from its stat: the classic owner / group / other
// bits (a process superd starts as a `uid` app has no supplementary groups: libuv drops
// them). ACLs are not read, so an ACL that grants more is not seen (refused: the safe side).

/**
 * Whether `who` has all of `bits` (0o4 read, 0o2 write, 0o1 search) on a file of this stat.
 * @param {{uid: number, gid: number, mode: number}} st
 * @param {{uid: number, gid: number}} who
 * @param {number} bits
 */
export function canAccess(st, who, bits) {
  if (who.uid === 0) return true;
  const shift = st.uid === who.uid ? 6 : st.gid === who.gid ? 3 : 0;
  return ((st.mode >> shift) & bits) === bits;
}
