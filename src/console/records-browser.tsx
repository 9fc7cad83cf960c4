import { Button, Code, Group, SegmentedControl, Select, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useQuery } from 'urql';
import { fieldErrors } from './errors.js';
import { graphql, type ResultOf } from './graphql.js';
import { EmptyState, ErrorState, LoadingState } from './states.js';
import { jsonText } from './format.js';
import { ScrollTable } from './ui.js';
import { PageButtons } from './page-buttons.js';

// The records of a database document (GraphQL `documentRecords`: the Document API's own filter,
// sort and cursor): a filter in the Document API's JSON form, a sort key, pages forward and back.

const RecordsQuery = graphql(`
  query DocumentRecords(
    $agentId: ID!
    $documentId: ID!
    $filter: JSONObject
    $sort: [RecordSortInput!]
    $first: Int!
    $after: String
  ) {
    documentRecords(
      agentId: $agentId
      documentId: $documentId
      filter: $filter
      sort: $sort
      first: $first
      after: $after
    ) {
      nodes {
        id
        data
      }
      totalCount
      endCursor
      hasNextPage
    }
  }
`);

type Records = ResultOf<typeof RecordsQuery>['documentRecords'];

interface Field {
  name: string;
  type: string;
}

const NO_SORT = '';
const PAGE_SIZES = ['10', '25', '50', '100'];

export function RecordsBrowser({
  agentId,
  documentId,
  fields,
}: {
  agentId: string;
  documentId: string;
  fields: readonly Field[];
}) {
  // What the form holds, and what the query runs with (applied by "Apply").
  const [filterText, setFilterText] = useState('');
  const [filterError, setFilterError] = useState<string | null>(null);
  const [filter, setFilter] = useState<Record<string, unknown> | null>(null);
  const [sortField, setSortField] = useState(NO_SORT);
  const [direction, setDirection] = useState<'ASC' | 'DESC'>('ASC');
  const [pageSize, setPageSize] = useState('25');
  // The cursors of the pages before this one (Previous goes back one), and this page's.
  const [cursors, setCursors] = useState<(string | null)[]>([]);
  const [after, setAfter] = useState<string | null>(null);
  const sortable = fields.filter((f) => f.type !== 'JSON');
  const sort = sortField ? [{ field: sortField, direction }] : null;
  const [{ data, error, fetching }, refetch] = useQuery({
    query: RecordsQuery,
    variables: { agentId, documentId, filter, sort, first: Number(pageSize), after },
    requestPolicy: 'cache-and-network',
  });
  const { fields: errors, other } = fieldErrors(error);
  const firstPage = () => {
    setCursors([]);
    setAfter(null);
  };

  const apply = (event: FormEvent) => {
    event.preventDefault();
    const text = filterText.trim();
    if (!text) {
      setFilterError(null);
      setFilter(null);
      firstPage();
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      setFilterError('Not valid JSON: write an object such as {"status": "open"}');
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setFilterError('The filter is a JSON object mapping field names to values or operators');
      return;
    }
    setFilterError(null);
    setFilter(parsed as Record<string, unknown>);
    firstPage();
  };

  const records: Records | undefined = data?.documentRecords;
  const start = cursors.length * Number(pageSize);
  return (
    <Stack gap="sm" component="section" aria-label="Records">
      <Title order={5}>Records</Title>
      <form onSubmit={apply} noValidate aria-label="Record filter">
        <Group align="flex-start" wrap="wrap">
          <Textarea
            label="Filter"
            description={
              'JSON, as the Document API\'s: {"status": "open", "score": {"gte": 3}, "title": {"contains": "x"}}'
            }
            placeholder="{}"
            autosize
            minRows={1}
            maxRows={6}
            value={filterText}
            onChange={(e) => setFilterText(e.currentTarget.value)}
            error={filterError ?? errors.filter}
            style={{ flex: '1 1 320px' }}
            styles={{ input: { fontFamily: 'ui-monospace, monospace' } }}
          />
          <Select
            label="Sort by"
            data={[
              { value: NO_SORT, label: 'Insertion order' },
              ...sortable.map((f) => ({ value: f.name, label: f.name })),
            ]}
            value={sortField}
            onChange={(v) => {
              setSortField(v ?? NO_SORT);
              firstPage();
            }}
            allowDeselect={false}
            error={errors.sort}
            w={180}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500} id={`${documentId}-direction`}>
              Direction
            </Text>
            <SegmentedControl
              aria-labelledby={`${documentId}-direction`}
              value={direction}
              onChange={(v) => {
                setDirection(v as 'ASC' | 'DESC');
                firstPage();
              }}
              disabled={!sortField}
              data={[
                { value: 'ASC', label: 'Ascending' },
                { value: 'DESC', label: 'Descending' },
              ]}
            />
          </Stack>
          <Select
            label="Per page"
            data={PAGE_SIZES}
            value={pageSize}
            onChange={(v) => {
              setPageSize(v ?? '25');
              firstPage();
            }}
            allowDeselect={false}
            w={100}
          />
        </Group>
        <Group mt="xs">
          <Button type="submit" variant="light">
            Apply filter
          </Button>
          <Button variant="default" onClick={() => refetch({ requestPolicy: 'network-only' })}>
            Refresh
          </Button>
        </Group>
      </form>
      {other ? <ErrorState error={error} retry={() => refetch({ requestPolicy: 'network-only' })} /> : null}
      {fetching && !records ? (
        <LoadingState label="Loading records…" />
      ) : !records ? (
        other || errors.filter || errors.sort ? null : (
          <ErrorState error={error} retry={() => refetch({ requestPolicy: 'network-only' })} />
        )
      ) : records.nodes.length === 0 ? (
        <EmptyState title={filter ? 'No record matches this filter' : 'No records yet'}>
          {filter
            ? 'Change or clear the filter.'
            : 'Records are added over the Document API (POST …/data/insert), by the agent’s scripts or its Documents capability.'}
        </EmptyState>
      ) : (
        <>
          <Text size="sm" role="status" aria-live="polite">
            Records {start + 1}–{start + records.nodes.length} of {records.totalCount}
          </Text>
          <ScrollTable minWidth={Math.max(480, 160 * (fields.length + 1))} label="Records table">
            <Table striped aria-label="Records of the document">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">id</Table.Th>
                  {fields.map((f) => (
                    <Table.Th scope="col" key={f.name}>
                      {f.name}
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {records.nodes.map((r) => (
                  <Table.Tr key={r.id}>
                    <Table.Td>
                      <Code>{r.id}</Code>
                    </Table.Td>
                    {fields.map((f) => (
                      <Table.Td key={f.name}>
                        <Text size="sm" lineClamp={3} ff={f.type === 'JSON' ? 'monospace' : undefined}>
                          {r.data[f.name] === undefined || r.data[f.name] === null ? '—' : jsonText(r.data[f.name])}
                        </Text>
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        </>
      )}
      <PageButtons
        pages={{ cursors, setCursors, after, setAfter }}
        page={records}
        previous="Previous page"
        next="Next page"
      />
    </Stack>
  );
}
