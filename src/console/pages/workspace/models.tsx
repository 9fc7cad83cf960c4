import { EmptyState } from '../../states.js';

/** The workspace's Models section (to be built). */
export default function ModelsSection() {
  return <EmptyState title="Models">Not in the console yet.</EmptyState>;
}
