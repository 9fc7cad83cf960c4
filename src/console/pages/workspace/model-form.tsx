import { Checkbox, Group, NumberInput, Select, Stack, Switch, TextInput } from '@mantine/core';
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { fieldErrors } from '../../errors.js';
import { numberOrNull } from '../../format.js';
import { graphql } from '../../graphql.js';
import { FormActions } from '../../ui.js';
import { MODELS, type ModelRow, type Provider } from './models-query.js';

const SecretNamesQuery = graphql(`
  query ModelSecretNames {
    secrets {
      id
      name
      kind
    }
  }
`);

const ConfigureModelMutation = graphql(`
  mutation ConfigureModel($input: ConfigureModelInput!) {
    configureModel(input: $input) {
      id
      name
      provider
      model
      baseUrl
      apiKeySecret
      isDefault
      acceptsImages
      inputPricePerMillion
      outputPricePerMillion
      warning
    }
  }
`);

const PROVIDERS: { value: Provider; label: string }[] = [
  { value: 'OPENAI', label: 'OpenAI' },
  { value: 'ANTHROPIC', label: 'Anthropic' },
  { value: 'OPENAI_COMPATIBLE', label: 'OpenAI-compatible server (Ollama, vLLM, …)' },
];

/** An admin's form for a model, new (`model` null) or configured; `onSaved` gets the service's warning, if any. */
export function ModelForm({
  model,
  onCancel,
  onSaved,
}: {
  model: ModelRow | null;
  onCancel: () => void;
  onSaved: (warning: string | null) => void;
}) {
  const [name, setName] = useState(model?.name ?? '');
  const [provider, setProvider] = useState<Provider>(model?.provider ?? 'OPENAI');
  const [modelName, setModelName] = useState(model?.model ?? '');
  const [baseUrl, setBaseUrl] = useState(model?.baseUrl ?? '');
  const [apiKeySecret, setApiKeySecret] = useState<string | null>(model?.apiKeySecret ?? null);
  const [inputPrice, setInputPrice] = useState<string | number>(model?.inputPricePerMillion ?? '');
  const [outputPrice, setOutputPrice] = useState<string | number>(model?.outputPricePerMillion ?? '');
  const [isDefault, setIsDefault] = useState(model?.isDefault ?? false);
  const [acceptsImages, setAcceptsImages] = useState(model?.acceptsImages ?? false);
  const [secrets] = useQuery({
    query: SecretNamesQuery,
    context: useMemo(() => ({ additionalTypenames: ['Secret'] }), []),
  });
  const [{ fetching, error }, configure] = useMutation(ConfigureModelMutation);
  const { fields, other } = fieldErrors(error);
  const secretOptions = [
    ...(secrets.data?.secrets ?? []).map((s) => ({
      value: s.name,
      label: s.kind === 'MODEL_API_KEY' ? s.name : `${s.name} (${s.kind.toLowerCase().replace(/_/g, ' ')})`,
    })),
    ...(apiKeySecret && !secrets.data?.secrets.some((s) => s.name === apiKeySecret)
      ? [{ value: apiKeySecret, label: apiKeySecret }]
      : []),
  ];
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await configure(
      {
        input: {
          name,
          provider,
          model: modelName,
          baseUrl: baseUrl.trim() || null,
          apiKeySecret,
          // An empty price is left out (the service's default: 0), not sent as null.
          ...(numberOrNull(inputPrice) === null ? {} : { inputPricePerMillion: numberOrNull(inputPrice) }),
          ...(numberOrNull(outputPrice) === null ? {} : { outputPricePerMillion: numberOrNull(outputPrice) }),
          isDefault,
          acceptsImages,
        },
      },
      MODELS,
    );
    if (result.data) onSaved(result.data.configureModel.warning ?? null);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          description="The reference agents and entries use"
          required
          data-autofocus
          readOnly={model !== null}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fields.name}
        />
        <Select
          label="Provider"
          data={PROVIDERS}
          value={provider}
          onChange={(v) => setProvider((v as Provider | null) ?? 'OPENAI')}
          allowDeselect={false}
          error={fields.provider}
        />
        <TextInput
          label="Model"
          description="The provider's model name"
          required
          value={modelName}
          onChange={(e) => setModelName(e.currentTarget.value)}
          error={fields.model}
        />
        <TextInput
          label="Base URL"
          description={
            provider === 'OPENAI_COMPATIBLE'
              ? 'The server URL, such as http://localhost:11434/v1'
              : "Optional: leave empty for the provider's own"
          }
          required={provider === 'OPENAI_COMPATIBLE'}
          value={baseUrl}
          onChange={(e) => setBaseUrl(e.currentTarget.value)}
          error={fields.baseUrl}
        />
        <Select
          label="API key secret"
          description="The secret holding the provider's API key; empty: the service's environment key"
          placeholder="None"
          data={secretOptions}
          value={apiKeySecret}
          onChange={setApiKeySecret}
          clearable
          error={fields.apiKeySecret}
        />
        <Group grow>
          <NumberInput
            label="Input price"
            description="Credits per million tokens"
            min={0}
            value={inputPrice}
            onChange={setInputPrice}
            error={fields.inputPricePerMillion}
          />
          <NumberInput
            label="Output price"
            description="Credits per million tokens"
            min={0}
            value={outputPrice}
            onChange={setOutputPrice}
            error={fields.outputPricePerMillion}
          />
        </Group>
        <Switch
          label="Accepts images"
          description="Chat requests to agents on this model may carry images (image_url parts); without it they are refused with 400"
          checked={acceptsImages}
          onChange={(e) => setAcceptsImages(e.currentTarget.checked)}
          error={fields.acceptsImages}
        />
        <Checkbox
          label="The workspace default"
          checked={isDefault}
          onChange={(e) => setIsDefault(e.currentTarget.checked)}
          error={fields.isDefault}
        />
        <FormActions error={other} submit="Save model" loading={fetching} onCancel={onCancel} light />
      </Stack>
    </form>
  );
}
