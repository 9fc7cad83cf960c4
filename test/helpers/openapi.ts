/** The HTTP methods an OpenAPI path item can hold operations for. */
export const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The operationId of every operation of an OpenAPI document, `undefined` where one is missing. */
export function operationIds(doc: any): (string | undefined)[] {
  return Object.values<any>(doc.paths).flatMap((item) =>
    OPENAPI_METHODS.filter((m) => item[m]).map((m) => item[m].operationId),
  );
}
