/** What survives a reload, per endpoint. */
export interface Saved {
  conversationId?: string;
  open?: boolean;
}

/** The widget's state in localStorage; storage that refuses (private mode, quota) just forgets. */
export class SavedState {
  private readonly key: string;

  constructor(endpoint: string) {
    this.key = `agent-chat:${endpoint}`;
  }

  load(): Saved {
    try {
      const saved = JSON.parse(localStorage.getItem(this.key) ?? '{}') as Saved;
      return saved && typeof saved === 'object' ? saved : {};
    } catch {
      return {};
    }
  }

  save(change: Saved): void {
    try {
      const next = { ...this.load(), ...change };
      if (!next.conversationId) delete next.conversationId;
      localStorage.setItem(this.key, JSON.stringify(next));
    } catch {
      // Storage refused (private mode, quota): the conversation simply does not survive a reload.
    }
  }
}
