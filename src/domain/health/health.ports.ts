// The port readiness asks. src/infra implements it (the store's ping); nothing here knows about SQL.

/** Whether the database answers now. */
export interface DatabaseProbe {
  /** True when a trivial statement succeeds; false (never a throw) when the database cannot be reached. */
  ping(): Promise<boolean>;
}
