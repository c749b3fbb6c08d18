import type { Key, ReactNode } from 'react';
import '@/features/account/consent.css';

/**
 * What the account holds (its devices, passkeys, connected applications):
 * nothing until the list has loaded, then an item per entry, its name first
 * and then what children draws; an empty list says none when it is given.
 */
export function AccountList<Item>({
  items,
  none,
  itemKey,
  name,
  children,
}: {
  items: readonly Item[] | null | undefined;
  none?: string;
  itemKey: (item: Item, index: number) => Key;
  name: (item: Item) => ReactNode;
  children: (item: Item) => ReactNode;
}) {
  if (!items) return null;
  if (items.length === 0 && none !== undefined) return <p>{none}</p>;
  return (
    <ul className="account-list">
      {items.map((item, i) => (
        <li key={itemKey(item, i)} className="account-list__item">
          <p className="account-list__name">{name(item)}</p>
          {children(item)}
        </li>
      ))}
    </ul>
  );
}
