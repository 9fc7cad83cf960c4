import { ActivityService } from './activity/activity.service.js';
import { AgentService } from './agents/agent.service.js';
import type { Clock } from './clock.js';
import { DocumentService } from './documents/document.service.js';
import { EntryService } from './entries/entry.service.js';
import { KeyService } from './keys/key.service.js';
import { MessageService } from './messages/message.service.js';
import { ModelService } from './models/model.service.js';
import type { Cipher, Store } from './ports.js';
import { SecretService } from './secrets/secret.service.js';
import { WorkspaceService } from './workspace/workspace.service.js';

/** Every use case of the domain, built once by the composition root. */
export interface Services {
  store: Store;
  clock: Clock;
  workspace: WorkspaceService;
  agents: AgentService;
  keys: KeyService;
  entries: EntryService;
  documents: DocumentService;
  secrets: SecretService;
  models: ModelService;
  messages: MessageService;
  activity: ActivityService;
}

export function createServices(deps: { store: Store; cipher: Cipher; clock: Clock }): Services {
  const { store, cipher, clock } = deps;
  return {
    store,
    clock,
    workspace: new WorkspaceService(store, clock),
    agents: new AgentService(store, clock),
    keys: new KeyService(store, clock),
    entries: new EntryService(store, clock),
    documents: new DocumentService(store, clock),
    secrets: new SecretService(store, cipher, clock),
    models: new ModelService(store, clock),
    messages: new MessageService(store, clock),
    activity: new ActivityService(store, clock),
  };
}
