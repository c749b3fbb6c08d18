import type { components, paths } from './schema';

// The two API clients of spec §7. Main client: base /api/v2 with headers
// province (upper case), language and api-key. Second client: base /api/v1
// with province, language and X-API-KEY, and an optional
// maintenancePageBypass query parameter. Answers are returned, not thrown:
// the spec's statuses (240, 404, 409...) drive navigation elsewhere.

export type ApiError = components['schemas']['Error'];
export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** The request's site, read when each request is made. */
export interface ApiSite {
  province: string;
  language: string;
  apiKey: string;
}

/** The API's bases: the portal's two clients and the staff console's. */
export type Base = '/api/v1' | '/api/v2' | '/api/console/v1';

/** Paths of the contract under a base, written relative to it ("/welcome"). */
export type PathUnder<B extends Base> = {
  [P in keyof paths]: P extends `${B}${infer Rest}` ? Rest : never;
}[keyof paths];

type PathItem<B extends Base, P extends PathUnder<B>> = `${B}${P}` extends keyof paths ? paths[`${B}${P}`] : never;

/** The operation of a method on a path (never when the contract has none). */
export type Operation<B extends Base, P extends PathUnder<B>, M extends HttpMethod> = NonNullable<PathItem<B, P>[M]>;

/** The methods the contract declares on a path. */
export type MethodOf<B extends Base, P extends PathUnder<B>> = {
  [M in HttpMethod]: [Operation<B, P, M>] extends [never] ? never : M;
}[HttpMethod];

type JsonBodies<R, Status> = {
  [S in keyof R]: S extends Status ? (R[S] extends { content: { 'application/json': infer Body } } ? Body : never) : never;
}[keyof R];

/** Union of the JSON bodies an operation may answer with, over all its statuses. */
export type ResponseBody<Op> = Op extends { responses: infer R } ? JsonBodies<R, keyof R> : never;

/** Union of the JSON bodies an operation answers with on success (2xx). */
export type SuccessBody<Op> = Op extends { responses: infer R } ? JsonBodies<R, 200 | 201 | 202 | 203 | 206> : never;

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  /** The parsed JSON body; undefined when the answer has none. */
  data: T | undefined;
}

export interface RequestOptions {
  /** Values for {name} placeholders in the path. */
  params?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

export interface ClientOptions {
  site: () => ApiSite;
  fetch?: typeof fetch;
}

export interface ApiClient<B extends Base> {
  request<P extends PathUnder<B>, M extends HttpMethod>(
    method: M,
    path: P,
    options?: RequestOptions,
  ): Promise<ApiResponse<ResponseBody<Operation<B, P, M>>>>;
}

export class ApiPathError extends Error {
  override name = 'ApiPathError';
}

/** The path with its {name} placeholders filled in, encoded. */
export function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new ApiPathError(`missing path parameter ${name} in ${path}`);
    return encodeURIComponent(value);
  });
}

async function readBody(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json')) return undefined;
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // a broken body reads as none; the status still tells the outcome
  }
}

function createClient<B extends Base>(base: B, keyHeader: string, options: ClientOptions, query: () => Record<string, string>): ApiClient<B> {
  return {
    async request(method, path, request = {}) {
      const site = options.site();
      const search = new URLSearchParams({ ...query(), ...request.query }).toString();
      const url = `${base}${fillPath(path, request.params)}${search ? `?${search}` : ''}`;
      const headers: Record<string, string> = {
        Accept: 'application/json',
        province: site.province.toUpperCase(),
        language: site.language,
        [keyHeader]: site.apiKey,
        ...request.headers,
      };
      const init: RequestInit = { method: method.toUpperCase(), headers, credentials: 'same-origin' };
      if (request.body !== undefined) {
        headers['Content-Type'] = 'application/json';
        init.body = JSON.stringify(request.body);
      }
      if (request.signal) init.signal = request.signal;
      const response = await (options.fetch ?? fetch)(url, init);
      return { status: response.status, headers: response.headers, data: (await readBody(response)) as never };
    },
  };
}

/** Main client: /api/v2, header api-key. */
export function createMainClient(options: ClientOptions): ApiClient<'/api/v2'> {
  return createClient('/api/v2', 'api-key', options, () => ({}));
}

/** Second client: /api/v1, header X-API-KEY, maintenancePageBypass when asked for. */
export function createSecondClient(
  options: ClientOptions & { maintenancePageBypass?: () => string | null },
): ApiClient<'/api/v1'> {
  return createClient('/api/v1', 'X-API-KEY', options, (): Record<string, string> => {
    const bypass = options.maintenancePageBypass?.();
    return bypass ? { maintenancePageBypass: bypass } : {};
  });
}
