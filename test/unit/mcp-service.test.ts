import { expect } from 'chai';
import type { McpTool } from '../../src/domain/entries/entry.entities.js';
import { DomainError, Invalid } from '../../src/domain/errors.js';
import type { Store } from '../../src/domain/ports.js';
import type { SurfaceRuns } from '../../src/domain/surfaces/surface-runs.ports.js';
import type { RunResult } from '../../src/domain/runtime/run.types.js';
import { userTurn } from '../../src/domain/runtime/run-input.js';
import { McpService } from '../../src/domain/surfaces/mcp.service.js';

// The MCP server surface's rules that need no database: what a call's arguments must be, what a
// finished run answers (text, structured result, or an error that says what to do), and what the
// model sees of the arguments.

function tool(over: Partial<McpTool> = {}): McpTool {
  const now = new Date();
  return {
    id: 'tool_1',
    agentId: 'agt_1',
    name: 'weather',
    description: 'Weather of a city',
    handler: { kind: 'script', body: 'return 1;' },
    modelOverride: null,
    inputSchema: null,
    outputSchema: null,
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

function result(over: Partial<RunResult>): RunResult {
  return {
    runId: 'run_1',
    output: null,
    usage: { inputTokens: 0, outputTokens: 0 },
    credits: 0,
    model: null,
    logs: [],
    durationMs: 1,
    ...over,
  };
}

function failure(fn: () => void): DomainError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('MCP surface rules', () => {
  const mcp = new McpService({} as Store, {} as SurfaceRuns);
  const CITY = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

  it('lists the tools by name, whatever order they were stored in; a name no tool has is NOT_FOUND naming it', async () => {
    const stored = ['weather', 'Zebra', 'alarm', 'météo', 'b'].map((name, i) => tool({ id: `tool_${i}`, name }));
    const store = { repos: { mcpTools: { listByAgents: async () => [...stored] } } } as unknown as Store;
    const service = new McpService(store, {} as SurfaceRuns);
    const agent = { id: 'agt_1' } as Parameters<McpService['tools']>[0];
    // Code-point order: upper case before lower case, accented letters after z.
    expect((await service.tools(agent)).map((t) => t.name)).to.deep.equal(['Zebra', 'alarm', 'b', 'météo', 'weather']);
    expect((await service.tool(agent, 'alarm')).id).to.equal('tool_2');
    let missing: unknown;
    try {
      await service.tool(agent, 'nope');
    } catch (err) {
      missing = err;
    }
    expect(missing).to.be.instanceOf(DomainError);
    expect([(missing as DomainError).code, (missing as DomainError).message]).to.deep.equal([
      'NOT_FOUND',
      "Tool 'nope' not found",
    ]);
  });

  it('describes a tool with the default {input: string} schema when it has none, and its output schema only when set', () => {
    // Without a schema, the description says what the tool takes (for clients that read no schemas).
    expect(mcp.describe(tool())).to.deep.equal({
      name: 'weather',
      description: 'Weather of a city\n\nArguments: {"input": "<text>"}, what to do or ask, as one string.',
      inputSchema: {
        type: 'object',
        properties: { input: { type: 'string', description: 'What to do or ask' } },
        required: ['input'],
      },
    });
    expect(mcp.describe(tool({ inputSchema: CITY, outputSchema: CITY }))).to.deep.include({
      description: 'Weather of a city',
      inputSchema: CITY,
      outputSchema: CITY,
    });
  });

  it('checks arguments against the tool schema: Invalid naming the field; the default schema wants a string input', () => {
    expect(() => mcp.checkArguments(tool({ inputSchema: CITY }), { city: 'Oslo' })).to.not.throw();
    const bad = failure(() => mcp.checkArguments(tool({ inputSchema: CITY }), { city: 3 }));
    expect(bad).to.be.instanceOf(Invalid);
    expect(bad.message).to.equal("Invalid arguments for tool 'weather': city: must be string");
    expect((bad as Invalid).field).to.equal('city');
    expect(failure(() => mcp.checkArguments(tool(), {})).message).to.include('input: is required');
    expect(() => mcp.checkArguments(tool(), { input: 'hi' })).to.not.throw();
  });

  it('a stored schema that cannot be used is a client error that says how to fix it, not a server error', () => {
    const broken = tool({ inputSchema: { type: 'object', properties: { a: { type: 'text' } } } });
    const err = failure(() => mcp.checkArguments(broken, { a: 1 }));
    expect(err).to.be.instanceOf(Invalid);
    expect(err.message).to.include('cannot be used').and.include('updateMcpTool');
  });

  it('answers a finished run with its output as text; an object as JSON text', () => {
    expect(mcp.outcome(tool(), result({ output: 'sunny' }))).to.deep.equal({ text: 'sunny', isError: false });
    expect(mcp.outcome(tool(), result({ output: { t: 21 } }))).to.deep.equal({ text: '{"t":21}', isError: false });
  });

  it('with an output schema: structured content checked against it; a prompt answer is the object its text holds', () => {
    const T = { type: 'object', properties: { t: { type: 'number' } }, required: ['t'] };
    expect(mcp.outcome(tool({ outputSchema: T }), result({ output: { t: 21 } }))).to.deep.equal({
      text: '{"t":21}',
      structured: { t: 21 },
      isError: false,
    });
    expect(mcp.outcome(tool({ outputSchema: T }), result({ output: '{"t": 5}' }))).to.deep.equal({
      text: '{"t": 5}',
      structured: { t: 5 },
      isError: false,
    });
    const wrong = mcp.outcome(tool({ outputSchema: T }), result({ output: { t: 'warm' } }));
    expect(wrong.isError).to.equal(true);
    expect(wrong.text).to.include('does not match its output schema (t: must be number)');
    expect(wrong).to.not.have.property('structured');
    for (const output of ['not json', '[1]', 7, null]) {
      const r = mcp.outcome(tool({ outputSchema: T }), result({ output }));
      expect(r.isError, String(output)).to.equal(true);
      expect(r.text).to.include('not a JSON object');
    }
  });

  it('a failed run is a tool error with its message, the run id and what to do; a cancelled one without advice', () => {
    const failed = mcp.outcome(tool(), result({ error: { kind: 'script', message: 'no stock' } }));
    expect(failed.isError).to.equal(true);
    expect(failed.text).to.include("The tool 'weather' failed: no stock").and.include('run_1').and.include('try again');
    const cancelled = mcp.outcome(
      tool(),
      result({ error: { kind: 'aborted', message: 'The caller went away; the run was cancelled' } }),
    );
    expect(cancelled).to.deep.equal({
      text: "The tool 'weather' failed: The caller went away; the run was cancelled",
      isError: true,
    });
  });

  it('a guardrail refusal is a tool error that asks to rephrase', () => {
    const r = mcp.refused(tool(), 'Input matches a blocked pattern');
    expect(r).to.deep.equal({
      text: 'The agent refused this input: Input matches a blocked pattern. Rephrase the request without the blocked content.',
      isError: true,
    });
  });

  it('the model sees the text itself under the default schema, else the arguments as JSON', () => {
    const input = (body: any) => mcp.input(tool(), body, {});
    expect(userTurn(input({ input: 'Is it raining in Oslo?' }))).to.equal('Is it raining in Oslo?');
    expect(userTurn(input({ city: 'Oslo' }))).to.equal('{\n  "city": "Oslo"\n}');
    expect(userTurn(input({ input: 'x', city: 'Oslo' }))).to.include('"city"');
    expect(userTurn(input({ input: 5 }))).to.equal('{\n  "input": 5\n}');
    expect(input({ city: 'Oslo' })).to.deep.include({
      surface: 'MCP',
      method: 'tools/call',
      path: 'weather',
      body: { city: 'Oslo' },
    });
    expect(mcp.entry(tool())).to.deep.equal({
      kind: 'mcp',
      id: 'tool_1',
      name: 'weather',
      handler: { kind: 'script', body: 'return 1;' },
      modelOverride: null,
    });
  });
});
