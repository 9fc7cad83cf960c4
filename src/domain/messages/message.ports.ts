import type { CrudRepo } from '../repo.ports.js';
import type { Message } from './message.entities.js';

// Ports of messages the domain talks to. src/infra implements them; nothing here knows about SQL.

export interface MessageRepo extends CrudRepo<Message> {}
