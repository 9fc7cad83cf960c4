import { EmptyState } from '../../states.js';

/** The workspace's Settings section (to be built). */
export default function SettingsSection() {
  return <EmptyState title="Settings">Not in the console yet.</EmptyState>;
}
