import { EmptyState } from '../../states.js';

/** The workspace's API Keys section (to be built). */
export default function WorkspaceKeysSection() {
  return <EmptyState title="API Keys">Not in the console yet.</EmptyState>;
}
