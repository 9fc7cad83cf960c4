import { EmptyState } from '../../states.js';

/** The workspace's Secrets section (to be built). */
export default function SecretsSection() {
  return <EmptyState title="Secrets">Not in the console yet.</EmptyState>;
}
