import { useEffect } from 'react';

// When this browser last showed an agent's Activity tab, for the Overview's last getting-started
// step ("see it in Activity"): kept in localStorage, as it is this person's progress, not the agent's.

const seenKey = (agentId: string) => `aes.activity-seen.${agentId}`;
const doneKey = (agentId: string) => `aes.getting-started-done.${agentId}`;

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null; // storage turned off: the step is then ticked by nothing but a visit in this page's life
  }
}

function write(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Storage turned off or full: the checklist only loses its memory.
  }
}

/** When the agent's Activity tab was last shown here (ISO), or null. */
export function activitySeenAt(agentId: string): string | null {
  return read(seenKey(agentId));
}

/** Whether the last step was seen done here before (it stays done). */
export function activityStepDone(agentId: string): boolean {
  return read(doneKey(agentId)) === 'yes';
}

/** Remembers that the last step is done. */
export function rememberActivityStepDone(agentId: string): void {
  write(doneKey(agentId), 'yes');
}

/**
 * Notes the Activity tab's visits: when it opens and when it closes, so that a call that came in
 * while it was shown counts as seen.
 */
export function useActivityVisits(agentId: string, tab: string): void {
  useEffect(() => {
    if (tab !== 'activity') return;
    const note = () => write(seenKey(agentId), new Date().toISOString());
    note();
    return note;
  }, [agentId, tab]);
}
