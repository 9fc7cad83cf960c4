import { Paper, Stack, Switch, Text, Textarea, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { fieldErrors } from '../../errors.js';
import { graphql, type ResultOf } from '../../graphql.js';
import { FormActions } from '../../ui.js';

const SetCors = graphql(`
  mutation SetCors($agentId: ID!, $allowPlatformApps: Boolean!, $customOrigins: [String!]) {
    setCors(agentId: $agentId, allowPlatformApps: $allowPlatformApps, customOrigins: $customOrigins) {
      id
      cors {
        allowPlatformApps
        customOrigins
      }
    }
  }
`);

type Cors = ResultOf<typeof SetCors>['setCors']['cors'];

/** The agent's CORS settings: platform apps and its own list of origins. */
export function CorsForm({ agentId, cors }: { agentId: string; cors: Cors }) {
  const [platform, setPlatform] = useState(cors.allowPlatformApps);
  const [origins, setOrigins] = useState(cors.customOrigins.join('\n'));
  const [saved, setSaved] = useState(false);
  const [{ fetching, error }, save] = useMutation(SetCors);
  const { fields, other } = fieldErrors(error);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const list = origins
      .split(/[\s,]+/)
      .map((o) => o.trim())
      .filter(Boolean);
    const r = await save({ agentId, allowPlatformApps: platform, customOrigins: list });
    if (!r.error) setSaved(true);
  };
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="cors-title">
      <form onSubmit={submit} noValidate aria-label="CORS">
        <Stack gap="sm">
          <Title order={3} size="h4" id="cors-title">
            CORS
          </Title>
          <Text size="sm">
            Which browser pages may call this agent. Servers and the chat widget's proxy need no entry.
          </Text>
          <Switch
            label="Allow requests from platform apps (this service's own pages)"
            checked={platform}
            onChange={(e) => setPlatform(e.currentTarget.checked)}
          />
          <Textarea
            label="Custom origins"
            description="One per line: scheme and host (and port), e.g. https://shop.example.com"
            autosize
            minRows={2}
            value={origins}
            onChange={(e) => setOrigins(e.currentTarget.value)}
            error={fields.customOrigins}
          />
          <FormActions error={other} submit="Save CORS" loading={fetching} saved={saved} />
        </Stack>
      </form>
    </Paper>
  );
}
