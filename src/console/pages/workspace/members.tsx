import { EmptyState } from '../../states.js';

/** The workspace's Members section (to be built). */
export default function MembersSection() {
  return <EmptyState title="Members">Not in the console yet.</EmptyState>;
}
