// A fake OpenAI Responses API server for driving the real `codex app-server` without a key.
//
// Zero dependencies (node:http, node:zlib). Binds 127.0.0.1 only. Stateless across requests:
// the scenario is picked by the last `[fake:NAME]` tag in the conversation's user text, and the
// step within it from what follows that message in the request's `input` (which of the
// scenario's tool calls already have a `function_call_output`). Several codex threads can share
// one server.
//
//   import { startFakeResponses } from './openai-responses.mjs';
//   const fake = await startFakeResponses();   // fake.url === 'http://127.0.0.1:PORT/v1'
//   ...; fake.requests;                          // [{method, path, headers, body}] in arrival order
//   await fake.close();
//
//   node tests/fake-models/openai-responses.mjs --port 8123 [--log]
//
// Scenarios: plan, implement (also the untagged user message `Implement the plan.`), patch, long,
// hello (also any other untagged request), reasoning, error, error-stream, stall. See README.md.

import http from 'node:http';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';

const TAG = /\[fake:([a-z0-9_-]+)\]/gi;

/** The demo's "Implement" prompt (www/src/components/Interaction.tsx IMPLEMENT_PROMPT): an
 *  untagged user message with exactly this text selects `implement`, as if tagged. */
export const IMPLEMENT_PROMPT = 'Implement the plan.';

export const PLAN_QUESTION = {
  id: 'scope',
  header: 'Scope',
  question: 'How much should the change cover?',
  options: [
    { label: 'Minimal', description: 'Only the change that was asked for.' },
    { label: 'Thorough', description: 'The change plus tests and docs.' },
  ],
};

export const PROPOSED_PLAN = [
  '# Add the notes file',
  '',
  '1. Create `NOTES.md` in the workspace root.',
  '2. Write a one-line summary of the change into it.',
  '3. Check the file is there and report back.',
].join('\n');

export const IMPLEMENT_STEPS = [
  'Create NOTES.md',
  'Write the summary',
  'Report back',
];

export const IMPLEMENT_COMMAND = 'echo implemented > NOTES.md';

let seq = 0;
const nextId = (prefix) => `${prefix}_fake_${Date.now().toString(36)}_${(seq++).toString(36)}`;

// ---- request inspection -------------------------------------------------------------------

function textOf(item) {
  if (!item || typeof item !== 'object') return '';
  if (typeof item.content === 'string') return item.content;
  if (!Array.isArray(item.content)) return '';
  return item.content.map((c) => (c && typeof c.text === 'string' ? c.text : '')).join('\n');
}

/** The last user message carrying a `[fake:NAME]` tag (or being exactly IMPLEMENT_PROMPT):
 *  {name, index} or null. */
export function findTag(input) {
  if (!Array.isArray(input)) return null;
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (!item || item.role !== 'user') continue;
    if (item.type && item.type !== 'message') continue;
    const text = textOf(item);
    const matches = [...text.matchAll(TAG)];
    if (matches.length) return { name: matches[matches.length - 1][1].toLowerCase(), index: i };
    if (text.trim() === IMPLEMENT_PROMPT) return { name: 'implement', index: i };
  }
  return null;
}

/** call_id -> output string for every function_call_output after `from`. */
function outputsAfter(input, from) {
  const out = new Map();
  for (const item of input.slice(from + 1)) {
    if (item && (item.type === 'function_call_output' || item.type === 'custom_tool_call_output')) {
      const o = item.output;
      out.set(item.call_id, typeof o === 'string' ? o : JSON.stringify(o));
    }
  }
  return out;
}

function toolNames(body) {
  return (Array.isArray(body.tools) ? body.tools : []).map((t) => t.name || t.type).filter(Boolean);
}

// ---- SSE writer ---------------------------------------------------------------------------

class Stream {
  constructor(req, res, model) {
    this.res = res;
    this.model = model;
    this.closed = false;
    this.responseId = nextId('resp');
    this.outputIndex = 0;
    this.finished = false;
    // res 'close' fires when the response ended or the connection went away.
    res.on('close', () => { this.closed = true; });
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-request-id': nextId('req'),
    });
  }

  send(type, payload = {}) {
    if (this.closed) return false;
    this.res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
    return true;
  }

  response(status, extra = {}) {
    return { id: this.responseId, object: 'response', created_at: Math.floor(Date.now() / 1000), status, model: this.model, output: [], ...extra };
  }

  created() { this.send('response.created', { response: this.response('in_progress') }); }

  async message(text, { chunks = null, delayMs = 0 } = {}) {
    const id = nextId('msg');
    const output_index = this.outputIndex++;
    const parts = chunks || splitText(text);
    const full = parts.join('');
    this.send('response.output_item.added', {
      output_index,
      item: { type: 'message', id, role: 'assistant', status: 'in_progress', content: [] },
    });
    this.send('response.content_part.added', { item_id: id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    for (const delta of parts) {
      if (this.closed) return;
      this.send('response.output_text.delta', { item_id: id, output_index, content_index: 0, delta });
      if (delayMs) await sleep(delayMs);
    }
    if (this.closed) return;
    this.send('response.output_text.done', { item_id: id, output_index, content_index: 0, text: full });
    this.send('response.content_part.done', { item_id: id, output_index, content_index: 0, part: { type: 'output_text', text: full, annotations: [] } });
    this.send('response.output_item.done', {
      output_index,
      item: { type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: full, annotations: [] }] },
    });
  }

  reasoning(summary) {
    const id = nextId('rs');
    const output_index = this.outputIndex++;
    this.send('response.output_item.added', { output_index, item: { type: 'reasoning', id, summary: [] } });
    this.send('response.reasoning_summary_part.added', { item_id: id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } });
    for (const delta of splitText(summary)) {
      this.send('response.reasoning_summary_text.delta', { item_id: id, output_index, summary_index: 0, delta });
    }
    this.send('response.reasoning_summary_text.done', { item_id: id, output_index, summary_index: 0, text: summary });
    this.send('response.reasoning_summary_part.done', { item_id: id, output_index, summary_index: 0, part: { type: 'summary_text', text: summary } });
    this.send('response.output_item.done', {
      output_index,
      item: { type: 'reasoning', id, summary: [{ type: 'summary_text', text: summary }], encrypted_content: null },
    });
  }

  functionCall(name, args, callId) {
    const id = nextId('fc');
    const output_index = this.outputIndex++;
    const argStr = JSON.stringify(args);
    this.send('response.output_item.added', {
      output_index,
      item: { type: 'function_call', id, call_id: callId, name, arguments: '', status: 'in_progress' },
    });
    this.send('response.function_call_arguments.delta', { item_id: id, output_index, delta: argStr });
    this.send('response.function_call_arguments.done', { item_id: id, output_index, arguments: argStr });
    this.send('response.output_item.done', {
      output_index,
      item: { type: 'function_call', id, call_id: callId, name, arguments: argStr, status: 'completed' },
    });
  }

  customToolCall(name, input, callId) {
    const id = nextId('ctc');
    const output_index = this.outputIndex++;
    this.send('response.output_item.added', {
      output_index,
      item: { type: 'custom_tool_call', id, call_id: callId, name, input: '', status: 'in_progress' },
    });
    this.send('response.custom_tool_call_input.delta', { item_id: id, output_index, delta: input });
    this.send('response.custom_tool_call_input.done', { item_id: id, output_index, input });
    this.send('response.output_item.done', {
      output_index,
      item: { type: 'custom_tool_call', id, call_id: callId, name, input, status: 'completed' },
    });
  }

  completed() {
    this.send('response.completed', {
      response: this.response('completed', {
        usage: {
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 20,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 120,
        },
      }),
    });
    this.end();
  }

  failed(code, message) {
    this.send('response.failed', { response: this.response('failed', { error: { code, message } }) });
    this.end();
  }

  end() {
    if (!this.closed) { this.finished = true; this.res.end(); }
    this.closed = true;
  }
}

function splitText(text) {
  // A few words per delta, keeping whitespace and newlines, so deltas concatenate to `text`.
  const words = text.match(/\S+\s*|\s+/g) || [''];
  const out = [];
  for (let i = 0; i < words.length; i += 3) out.push(words.slice(i, i + 3).join(''));
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- scenarios ----------------------------------------------------------------------------

const CALL = {
  planQuestion: 'call_fake_plan_scope',
  implPlanStart: 'call_fake_impl_plan_start',
  implShell: 'call_fake_impl_shell',
  implPlanDone: 'call_fake_impl_plan_done',
  patch: 'call_fake_patch',
};

export const PATCH = [
  '*** Begin Patch',
  '*** Add File: PATCHED.md',
  '+patched by the fake model',
  '*** End Patch',
  '',
].join('\n');

function shellCall(body, cwd) {
  // Codex 0.169.0 offers `exec_command` (unified exec) by default; `shell` / `shell_command`
  // on other configurations. Use whichever the request lists.
  const names = toolNames(body);
  if (names.includes('exec_command')) {
    return ['exec_command', { cmd: IMPLEMENT_COMMAND, ...(cwd ? { workdir: cwd } : {}), yield_time_ms: 1000 }];
  }
  if (names.includes('shell_command')) {
    return ['shell_command', { command: IMPLEMENT_COMMAND, ...(cwd ? { workdir: cwd } : {}) }];
  }
  return ['shell', { command: ['bash', '-lc', IMPLEMENT_COMMAND], ...(cwd ? { workdir: cwd } : {}) }];
}

function cwdOf(input) {
  // codex sends an <environment_context> user message holding <cwd>…</cwd>.
  for (const item of Array.isArray(input) ? input : []) {
    const m = /<cwd>([^<]+)<\/cwd>/.exec(textOf(item));
    if (m) return m[1];
  }
  return null;
}

const scenarios = {
  async hello(s) {
    s.created();
    await s.message('Hello from the fake model.');
    s.completed();
  },

  async reasoning(s) {
    s.created();
    s.reasoning('Thinking about the fake question before answering.');
    await s.message('Reasoned answer from the fake model.');
    s.completed();
  },

  async plan(s, { outputs }) {
    s.created();
    if (!outputs.has(CALL.planQuestion)) {
      await s.message('I need one answer before I plan.');
      s.functionCall('request_user_input', { questions: [PLAN_QUESTION] }, CALL.planQuestion);
    } else {
      await s.message(`Here is the plan.\n\n<proposed_plan>\n${PROPOSED_PLAN}\n</proposed_plan>\n\nSay the word and I will implement it.`);
    }
    s.completed();
  },

  async implement(s, { outputs, body, cwd }) {
    s.created();
    if (!outputs.has(CALL.implPlanStart)) {
      s.functionCall('update_plan', {
        explanation: 'Implementing the agreed plan.',
        plan: IMPLEMENT_STEPS.map((step, i) => ({ step, status: i === 0 ? 'in_progress' : 'pending' })),
      }, CALL.implPlanStart);
    } else if (!outputs.has(CALL.implShell)) {
      const [name, args] = shellCall(body, cwd);
      s.functionCall(name, args, CALL.implShell);
    } else if (!outputs.has(CALL.implPlanDone)) {
      s.functionCall('update_plan', {
        plan: IMPLEMENT_STEPS.map((step) => ({ step, status: 'completed' })),
      }, CALL.implPlanDone);
    } else {
      await s.message('Done: the plan is implemented.');
    }
    s.completed();
  },

  async patch(s, { outputs, body }) {
    s.created();
    if (!outputs.has(CALL.patch)) {
      // 0.169.0 offers apply_patch as a freeform (custom) tool; a function-tool variant takes {input}.
      const tool = (body.tools || []).find((t) => t.name === 'apply_patch');
      if (tool && tool.type === 'function') s.functionCall('apply_patch', { input: PATCH }, CALL.patch);
      else s.customToolCall('apply_patch', PATCH, CALL.patch);
    } else {
      await s.message('Patched: PATCHED.md added.');
    }
    s.completed();
  },

  async long(s) {
    s.created();
    const chunks = [];
    for (let i = 0; i < 200; i++) chunks.push(`word${i} of the long answer `);
    await s.message(null, { chunks, delayMs: 50 });
    if (!s.closed) s.completed();
  },

  async 'error-stream'(s) {
    s.created();
    s.failed('server_error', 'The fake model failed mid-stream.');
  },

  async stall(s) {
    s.created();
    // Nothing more until the client goes away.
    await new Promise((resolve) => {
      const t = setInterval(() => { if (s.closed) { clearInterval(t); resolve(); } }, 100);
    });
  },
};

// ---- auxiliary requests -------------------------------------------------------------------

function isAuxiliary(body) {
  // Requests without tools and without a tagged user message that are not a normal turn (for
  // instance a compaction / title / summary request) get a short plain answer.
  return !Array.isArray(body.tools) || body.tools.length === 0;
}

// ---- server -------------------------------------------------------------------------------

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let buf = Buffer.concat(chunks);
      const enc = (req.headers['content-encoding'] || '').toLowerCase();
      try {
        if (enc === 'gzip') buf = zlib.gunzipSync(buf);
        else if (enc === 'deflate') buf = zlib.inflateSync(buf);
        else if (enc === 'br') buf = zlib.brotliDecompressSync(buf);
        else if (enc === 'zstd' && typeof zlib.zstdDecompressSync === 'function') buf = zlib.zstdDecompressSync(buf);
      } catch (e) {
        reject(e);
        return;
      }
      resolve(buf);
    });
    req.on('error', reject);
  });
}

function json(res, status, obj) {
  const body = JSON.stringify(obj);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function startFakeResponses({ port = 0, log = null } = {}) {
  const requests = [];
  const say = typeof log === 'function' ? log : log ? (m) => process.stderr.write(`[fake-responses] ${m}\n`) : () => {};

  const server = http.createServer(async (req, res) => {
    let raw;
    try {
      raw = await readBody(req);
    } catch (e) {
      json(res, 400, { error: { message: `cannot decode body: ${e.message}`, type: 'invalid_request_error' } });
      return;
    }
    let body = null;
    if (raw.length) {
      try { body = JSON.parse(raw.toString('utf8')); } catch { body = raw.toString('utf8'); }
    }
    const url = new URL(req.url, 'http://127.0.0.1');
    const record = { method: req.method, path: url.pathname, query: url.search, headers: req.headers, body };
    requests.push(record);
    say(`${req.method} ${req.url} ${raw.length}B`);

    if (req.method === 'GET' && /\/models\/?$/.test(url.pathname)) {
      // codex's model list refresh; an empty list keeps its bundled catalog.
      json(res, 200, { object: 'list', data: [], models: [] });
      return;
    }
    if (req.method !== 'POST' || !/\/responses\/?$/.test(url.pathname)) {
      json(res, 404, { error: { message: `fake-responses: no route for ${req.method} ${url.pathname}`, type: 'invalid_request_error' } });
      return;
    }
    if (!body || typeof body !== 'object') {
      json(res, 400, { error: { message: 'fake-responses: body is not JSON', type: 'invalid_request_error' } });
      return;
    }

    const input = Array.isArray(body.input) ? body.input : [];
    const tag = findTag(input);
    let name = tag ? tag.name : 'hello';
    if (!tag && isAuxiliary(body)) name = 'hello';
    record.scenario = name;
    say(`  scenario ${name}`);

    if (name === 'error') {
      json(res, 500, { error: { message: 'The fake model is broken on purpose.', type: 'server_error', param: null, code: 'server_error' } });
      return;
    }
    const run = scenarios[name] || scenarios.hello;
    const s = new Stream(req, res, body.model || 'fake');
    const ctx = { body, input, outputs: outputsAfter(input, tag ? tag.index : -1), cwd: cwdOf(input) };
    try {
      await run(s, ctx);
      say(`  scenario ${name} ${s.finished ? 'done' : 'stopped: the client went away'}`);
    } catch (e) {
      say(`  scenario ${name} threw: ${e.stack || e}`);
      s.end();
    }
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const actual = server.address().port;
      resolve({
        url: `http://127.0.0.1:${actual}/v1`,
        port: actual,
        requests,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

// ---- CLI ----------------------------------------------------------------------------------

if (import.meta.url === pathToFileURL(process.argv[1] || '').href) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--port');
  const port = i >= 0 ? Number(args[i + 1]) : 0;
  const fake = await startFakeResponses({ port, log: args.includes('--log') });
  // --requests-log FILE: every request as one JSON line ({method, path, query, headers, body}),
  // appended as it arrives (for tests that drive the fake from another process).
  const r = args.indexOf('--requests-log');
  if (r >= 0) {
    const file = args[r + 1];
    const { appendFileSync } = await import('node:fs');
    fake.requests.push = function (...records) {
      for (const rec of records) appendFileSync(file, JSON.stringify(rec) + '\n');
      return Array.prototype.push.apply(this, records);
    };
  }
  process.stdout.write(`fake-responses listening on ${fake.url}\n`);
  const stop = () => fake.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
