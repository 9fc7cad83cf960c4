import type { OutboundEmail } from '../email/reply.js';
import type { Workspace } from '../workspace/workspace.entities.js';
import type { Invitation } from './invitation.entities.js';

/** The email that carries an invitation's link (plain text; the workspace name is the admin's, so it is cut). */
export function invitationEmail(v: {
  invitation: Invitation;
  workspace: Workspace;
  link: string;
  domain: string;
}): OutboundEmail {
  const { invitation, workspace, link, domain } = v;
  const name = workspace.name.replace(/[\r\n]+/g, ' ').slice(0, 100);
  const role = invitation.role === 'ADMIN' ? 'an admin' : invitation.role === 'VIEWER' ? 'a viewer' : 'a member';
  return {
    from: `no-reply@${domain}`,
    to: [invitation.email],
    subject: `You are invited to ${name}`,
    text: [
      `You are invited to join the workspace "${name}" as ${role}.`,
      '',
      `Open this link to accept (it works once, until ${invitation.expiresAt.toUTCString()}):`,
      link,
      '',
      'If you did not expect this invitation, ignore this email.',
    ].join('\n'),
    messageId: `<${invitation.id}@${domain}>`,
    inReplyTo: null,
    references: [],
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
