/**
 * Values per `in (…)` list. The list has a fixed length, padded with nulls (which match nothing),
 * so one statement serves every query: the plan stays an index lookup per value, which a
 * `json_each` list would leave to the planner's guess.
 */
export const SLOTS = 16;
export const SLOT_MARKS = Array.from({ length: SLOTS }, () => '?').join(',');

/** `values` in lists of {@link SLOTS}, the last padded with nulls; none for no values. */
export function inSlots<T>(values: readonly T[]): Array<Array<T | null>> {
  const lists: Array<Array<T | null>> = [];
  for (let i = 0; i < values.length; i += SLOTS) {
    const list: Array<T | null> = values.slice(i, i + SLOTS);
    while (list.length < SLOTS) list.push(null);
    lists.push(list);
  }
  return lists;
}
