import type { Clock } from '../clock.js';
import type { Store } from '../ports.js';
import type { Cipher } from '../secrets/secret.ports.js';
import { EventDeliveryTask } from './event-delivery.task.js';
import { EventOutboxService } from './event-outbox.service.js';
import { DEFAULT_EVENT_RETRY, type EventRetryPolicy } from './event-outcome.js';
import { EventSubscriptionService } from './event-subscription.service.js';
import type { EventQueueSignal, EventSender } from './event.ports.js';

/** The outbound events' use cases, part of `Services`. */
export interface EventServices {
  /** Outbound event webhooks: workspace admins' subscriptions, their deliveries, replays and test events. */
  events: EventSubscriptionService;
  /** Where events are emitted: stored for their subscriptions before they are sent. */
  eventOutbox: EventOutboxService;
  /** Sends one claimed event delivery and settles it (the event queue's task). */
  eventDelivery: EventDeliveryTask;
  /** Rung when an event delivery is stored here: the composition root points it at this instance's event worker. */
  eventQueued: EventQueueSignal;
}

/** What the outbound events take from `ServiceDeps`. */
export interface EventDeps {
  /** Sends outbound events (Standard Webhooks over HTTP, in src/infra); absent: every attempt fails, nothing is sent. */
  eventSender?: EventSender;
  /** The events' retry schedule and failure streak (tests shorten them). */
  eventRetry?: Partial<EventRetryPolicy>;
  /** Where the events' notices go (a subscription disabled, an event that could not be stored). */
  eventLog?: (fields: Record<string, unknown>, message: string) => void;
}

const NO_SENDER: EventSender = {
  send: async () => ({ status: null, response: 'No event sender is configured', durationMs: 0 }),
};

/** Builds the outbound events' services over the store. */
export function eventServicesOf(core: { store: Store; cipher: Cipher; clock: Clock }, deps: EventDeps): EventServices {
  const { store, cipher, clock } = core;
  const eventQueued: EventQueueSignal = { onQueued: () => {} };
  const eventOutbox = new EventOutboxService(store, clock, eventQueued, (err, kind) =>
    deps.eventLog?.({ err, kind }, 'event not stored; it will not be sent'),
  );
  return {
    events: new EventSubscriptionService(store, cipher, clock, eventQueued),
    eventOutbox,
    eventDelivery: new EventDeliveryTask({
      store,
      cipher,
      clock,
      outbox: eventOutbox,
      sender: deps.eventSender ?? NO_SENDER,
      policy: { ...DEFAULT_EVENT_RETRY, ...deps.eventRetry },
      notice: deps.eventLog,
    }),
    eventQueued,
  };
}
