// Entities of admission (credits and run leases) as the domain sees them. Repositories map rows to
// these explicitly.

export interface DailyUsage {
  agentId: string;
  day: string;
  credits: number;
  runs: number;
}
