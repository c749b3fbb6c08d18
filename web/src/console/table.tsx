import type { ReactNode } from 'react';

/**
 * A table of the console: its caption (for screen readers only, unless
 * captionShown), one column header per label, then the rows.
 */
export function Table({
  caption,
  captionShown = false,
  columns,
  children,
}: {
  caption?: string;
  captionShown?: boolean;
  columns: string[];
  children: ReactNode;
}) {
  return (
    <table className="console-table">
      {caption === undefined ? null : <caption className={captionShown ? undefined : 'visually-hidden'}>{caption}</caption>}
      <thead>
        <tr>
          {columns.map((label, i) => (
            <th key={i} scope="col">
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
