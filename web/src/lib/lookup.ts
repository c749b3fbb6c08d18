/**
 * The value a table holds under a key from outside (a server's code, a
 * province): undefined when the table itself does not hold it, so a key such
 * as "toString" never reaches Object.prototype's members.
 */
export function lookup<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
