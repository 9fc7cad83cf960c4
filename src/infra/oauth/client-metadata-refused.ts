/** Why a Client ID Metadata Document was refused; stable codes for logs, metrics and tests. */
export type ClientMetadataRefusalReason =
  | 'bad_client_id'
  | 'not_https'
  | 'private_address'
  | 'fetch_failed'
  | 'redirect'
  | 'too_large'
  | 'timeout'
  | 'bad_document';

/**
 * A client id URL or the document behind it was refused. `message` is written for the client's
 * developer and is safe as an OAuth `error_description`: ASCII without `"` or `\`, and it never
 * echoes what the client sent (the URL and the document are attacker-controlled text).
 */
export class ClientMetadataRefused extends Error {
  override readonly name = 'ClientMetadataRefused';

  constructor(
    readonly reason: ClientMetadataRefusalReason,
    message: string,
  ) {
    super(message);
  }
}
