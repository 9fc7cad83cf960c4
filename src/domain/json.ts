/** JSON value crossing the sandbox or model boundary. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
