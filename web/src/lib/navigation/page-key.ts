/**
 * What makes a new page: the path and query, less the header's choices
 * (?lang=, ?province=: the address follows them, the page stays).
 */
export function pageKey(path: string, search: string): string {
  const params = new URLSearchParams(search);
  params.delete('lang');
  params.delete('province');
  const rest = params.toString();
  return rest ? `${path}?${rest}` : path;
}
