import { Center, Loader } from '@mantine/core';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Provider, useQuery } from 'urql';
import { createClient } from './client.js';
import { isUnauthenticated } from './errors.js';
import { graphql } from './graphql.js';
import { Shell } from './shell.js';
import { SignInPage } from './pages/sign-in.js';
import { sessionInfo, signOut } from './session.js';
import { ErrorState } from './states.js';

export const ViewerQuery = graphql(`
  query Viewer {
    viewer {
      id
      name
      email
      role
      account {
        id
        name
        email
        operator
        hasPassword
      }
      workspaces {
        workspace {
          id
          name
          slug
        }
        role
        current
      }
    }
  }
`);

function FullPageLoader() {
  return (
    <Center h="100vh">
      <Loader aria-label="Loading the console" />
    </Center>
  );
}

/** The signed-in console, once the viewer query has answered (a 401 from it shows the sign-in page). */
function SignedIn({
  onSignedOut,
  onSignedIn,
  memberToken,
}: {
  onSignedOut: () => void;
  onSignedIn: () => void;
  memberToken: boolean;
}) {
  const [{ data, error, fetching }, retry] = useQuery({ query: ViewerQuery, requestPolicy: 'network-only' });
  if (fetching && !data) return <FullPageLoader />;
  if (isUnauthenticated(error)) return <SignInPage onSignedIn={onSignedIn} />;
  if (error || !data) return <ErrorState error={error} retry={() => retry({ requestPolicy: 'network-only' })} />;
  return <Shell viewer={{ ...data.viewer, memberToken }} onSignOut={onSignedOut} />;
}

type SessionState = 'checking' | 'signed-in' | 'signed-out' | 'unreachable';

export function App() {
  // A new client (and so an empty cache) for each session.
  const [generation, setGeneration] = useState(0);
  const [state, setState] = useState<SessionState>('checking');
  const [memberToken, setMemberToken] = useState(false);
  // A session that ends while the console is open (any answer says so) shows the sign-in page.
  const client = useMemo(() => createClient(() => setState('signed-out')), [generation]);
  useEffect(() => {
    let live = true;
    sessionInfo().then(
      (info) => {
        if (!live) return;
        setMemberToken(info.memberToken);
        setState(info.signedIn ? 'signed-in' : 'signed-out');
      },
      () => live && setState('unreachable'),
    );
    return () => {
      live = false;
    };
  }, [generation]);
  const onSignedIn = useCallback(() => {
    setState('checking');
    setGeneration((g) => g + 1);
  }, []);
  const onSignedOut = useCallback(() => {
    // The signed-in pages unmount first (their queries are torn down), so none is answered 401
    // by a session the sign-out has already ended.
    setState('checking');
    void signOut().then(onSignedIn);
  }, [onSignedIn]);
  if (state === 'checking') return <FullPageLoader />;
  if (state === 'signed-out') return <SignInPage onSignedIn={onSignedIn} />;
  if (state === 'unreachable') return <ErrorState error={undefined} retry={onSignedIn} />;
  return (
    <Provider value={client}>
      <SignedIn key={generation} onSignedIn={onSignedIn} onSignedOut={onSignedOut} memberToken={memberToken} />
    </Provider>
  );
}
