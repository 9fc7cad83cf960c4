import { EmptyState } from '../../states.js';

/** The workspace's Teams and limits section (to be built). */
export default function TeamsSection() {
  return <EmptyState title="Teams and limits">Not in the console yet.</EmptyState>;
}
