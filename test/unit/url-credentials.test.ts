import { expect } from 'chai';
import { maskUrlCredentials, maskUrlCredentialsIn } from '../../src/domain/models/url-credentials.js';

describe('masking the credentials of a model base URL', () => {
  it('masks user info whole, the query and the fragment, and keeps scheme, host, port and path', () => {
    expect(maskUrlCredentials('https://user:secret@llm.example.com:8443/v1')).to.equal(
      'https://***@llm.example.com:8443/v1',
    );
    expect(maskUrlCredentials('https://tok_abc123@llm.example.com/v1')).to.equal('https://***@llm.example.com/v1');
    expect(maskUrlCredentials('https://:secret@llm.example.com/')).to.equal('https://***@llm.example.com/');
    expect(maskUrlCredentials('https://llm.example.com/v1?api-key=k3y&x=1#frag')).to.equal(
      'https://llm.example.com/v1?***#***',
    );
  });

  it('returns a URL without credentials exactly as stored, and masks one that does not parse', () => {
    expect(maskUrlCredentials('http://localhost:11434/v1')).to.equal('http://localhost:11434/v1');
    expect(maskUrlCredentials('https://llm.example.com')).to.equal('https://llm.example.com');
    expect(maskUrlCredentials('not a url user:secret')).to.equal('***');
  });

  it('masks every URL quoted in a message', () => {
    const text =
      'Request cannot be constructed from a URL that includes credentials: http://u:p4ss@127.0.0.1:9/v1/chat. Also https://h/x?key=k.';
    expect(maskUrlCredentialsIn(text)).to.equal(
      'Request cannot be constructed from a URL that includes credentials: http://***@127.0.0.1:9/v1/chat. Also https://h/x?***',
    );
  });
});
