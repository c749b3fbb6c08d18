import type { Key, ReactNode } from 'react';

/** One column of a console table: its header, and what a row shows in it. */
export interface Column<Row> {
  label: string;
  cell: (row: Row) => ReactNode;
}

/**
 * A table of the console: its caption (for screen readers only, unless
 * captionShown), one column header per column, then a row per item, each
 * cell drawn by its column.
 */
export function Table<Row>({
  caption,
  captionShown = false,
  columns,
  rows,
  rowKey,
}: {
  caption?: string;
  captionShown?: boolean;
  columns: Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row, index: number) => Key;
}) {
  return (
    <table className="console-table">
      {caption === undefined ? null : <caption className={captionShown ? undefined : 'visually-hidden'}>{caption}</caption>}
      <thead>
        <tr>
          {columns.map((column, i) => (
            <th key={i} scope="col">
              {column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={rowKey(row, i)}>
            {columns.map((column, c) => (
              <td key={c}>{column.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
