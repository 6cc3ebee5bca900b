// A fake Anthropic Messages API server for driving the real Claude Code CLI without a key.
//
// Zero dependencies (node:http, node:zlib). Binds 127.0.0.1 only. Stateless across requests:
// the scenario is picked by the last `[fake:NAME]` tag in the conversation's user text, and the
// step within it from what follows that message in the request's `messages` (which of the
// scenario's tool calls already have a `tool_result`). Several Claude sessions can share one
// server. Claude Code calls it with `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT` (no `/v1`: the
// CLI appends `/v1/messages?beta=true`) and any `ANTHROPIC_API_KEY`.
//
//   import { startFakeMessages } from './anthropic-messages.mjs';
//   const fake = await startFakeMessages();      // fake.url === 'http://127.0.0.1:PORT'
//   ...; fake.requests;                           // [{method, path, query, headers, body, scenario}]
//   fake.streaming;                               // streamed answers still open
//   await fake.close();
//
//   node tests/fake-models/anthropic-messages.mjs --port 8124 [--log] [--requests-log FILE]
//
// Scenarios: plan, implement (also the untagged user message `Implement the plan.`), question,
// bash, long, hello (also any other untagged request), thinking, error, error-stream, stall.
// See README.md.

import http from 'node:http';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';

const TAG = /\[fake:([a-z0-9_-]+)\]/gi;

/** The demo's "Implement" prompt (www/src/components/Interaction.tsx IMPLEMENT_PROMPT): an
 *  untagged user message with exactly this text selects `implement`, as if tagged. */
export const IMPLEMENT_PROMPT = 'Implement the plan.';

/** The plan scenario's question, as `AskUserQuestion` takes it. */
export const PLAN_QUESTION = {
  question: 'How much should the change cover?',
  header: 'Scope',
  options: [
    { label: 'Minimal', description: 'Only the change that was asked for.' },
    { label: 'Thorough', description: 'The change plus tests and docs.' },
  ],
  multiSelect: false,
};

/** The plan file's body (the CLI reads it back into ExitPlanMode's `plan`). */
export const PROPOSED_PLAN = [
  '# Add the notes file',
  '',
  '1. Create `NOTES.md` in the workspace root.',
  '2. Write a one-line summary of the change into it.',
  '3. Check the file is there and report back.',
].join('\n');

/** The command `implement` runs (a write: Claude Code asks permission for it). */
export const IMPLEMENT_COMMAND = 'echo implemented > NOTES.md';
/** The command `bash` runs. */
export const BASH_COMMAND = 'echo approved > APPROVED.md';

export const TEXT = {
  hello: 'Hello from the fake model.',
  planAsk: 'I need one answer before I plan.',
  planWrite: 'Writing the plan file.',
  planApproved: 'The plan is approved. Say the word and I will implement it.',
  planRejected: 'Understood: the plan stays a proposal.',
  implemented: 'Done: the plan is implemented.',
  bashDone: 'The command ran.',
  bashDenied: 'The command was not allowed.',
  thinking: 'Thinking about the fake question before answering.',
  reasoned: 'Reasoned answer from the fake model.',
};

let seq = 0;
const nextId = (prefix) => `${prefix}_fake${Date.now().toString(36)}${(seq++).toString(36)}`;

// ---- request inspection -------------------------------------------------------------------

function blocks(message) {
  if (!message || typeof message !== 'object') return [];
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? message.content.filter((b) => b && typeof b === 'object') : [];
}

function userText(message) {
  return blocks(message).filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text);
}

/** The last user message whose text carries a `[fake:NAME]` tag (or is exactly
 *  IMPLEMENT_PROMPT): {name, index} or null. Tool results are not looked at. */
export function findTag(messages) {
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!m || m.role !== 'user') continue;
    const texts = userText(m);
    for (let j = texts.length - 1; j >= 0; j--) {
      // The CLI wraps its own notes in <system-reminder>; the user's text is outside them.
      const own = texts[j].replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '');
      const matches = [...own.matchAll(TAG)];
      if (matches.length) return { name: matches[matches.length - 1][1].toLowerCase(), index: i };
      if (own.trim() === IMPLEMENT_PROMPT) return { name: 'implement', index: i };
    }
  }
  return null;
}

/** Step name -> {text, isError} for every tool_result after `from` whose tool_use id this server
 *  gave (`toolu_fake_<step>_…`). */
function resultsAfter(messages, from) {
  const out = new Map();
  for (const m of messages.slice(from + 1)) {
    if (!m || m.role !== 'user') continue;
    for (const b of blocks(m)) {
      if (b.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
      const step = /^toolu_fake_([a-z]+)_/.exec(b.tool_use_id);
      if (!step) continue;
      const text = typeof b.content === 'string'
        ? b.content
        : (Array.isArray(b.content) ? b.content.map((c) => (c && typeof c.text === 'string' ? c.text : '')).join('\n') : '');
      out.set(step[1], { text, isError: b.is_error === true });
    }
  }
  return out;
}

/** Every text the request carries (system prompt and messages), for the CLI's notes. */
function allText(body) {
  const parts = [];
  const sys = body.system;
  if (typeof sys === 'string') parts.push(sys);
  else if (Array.isArray(sys)) for (const b of sys) if (b && typeof b.text === 'string') parts.push(b.text);
  for (const m of Array.isArray(body.messages) ? body.messages : []) for (const t of userText(m)) parts.push(t);
  return parts.join('\n');
}

/** The plan file path plan mode tells the model to write (`…create your plan at PATH using the
 *  Write tool`, or `A plan file already exists at PATH`). */
export function planFilePath(body) {
  const text = allText(body);
  const m = /create your plan at (\/\S+?\.md)/.exec(text) || /plan file already exists at (\/\S+?\.md)/.exec(text);
  return m ? m[1] : null;
}

function toolNames(body) {
  return (Array.isArray(body.tools) ? body.tools : []).map((t) => t && t.name).filter(Boolean);
}

// ---- SSE writer ---------------------------------------------------------------------------

class Stream {
  constructor(res, model) {
    this.res = res;
    this.model = model;
    this.closed = false;
    this.finished = false;
    this.index = 0;
    this.messageId = nextId('msg');
    res.on('close', () => { this.closed = true; });
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': nextId('req'),
    });
  }

  send(type, payload = {}) {
    if (this.closed) return false;
    this.res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
    return true;
  }

  start() {
    this.send('message_start', {
      message: {
        id: this.messageId, type: 'message', role: 'assistant', model: this.model, content: [],
        stop_reason: null, stop_sequence: null,
        usage: { input_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
      },
    });
  }

  async text(text, { chunks = null, delayMs = 0 } = {}) {
    const index = this.index++;
    this.send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const piece of chunks || splitText(text)) {
      if (this.closed) return;
      this.send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      if (delayMs) await sleep(delayMs);
    }
    this.send('content_block_stop', { index });
  }

  thinking(text) {
    const index = this.index++;
    this.send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const piece of splitText(text)) this.send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
    this.send('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'ZmFrZS1zaWduYXR1cmU=' } });
    this.send('content_block_stop', { index });
  }

  /** A tool_use block, its input streamed as `input_json_delta` pieces. */
  toolUse(step, name, input) {
    const index = this.index++;
    const id = `toolu_fake_${step}_${Date.now().toString(36)}${(seq++).toString(36)}`;
    this.send('content_block_start', { index, content_block: { type: 'tool_use', id, name, input: {} } });
    const json = JSON.stringify(input);
    const cut = Math.max(1, Math.floor(json.length / 2));
    for (const piece of [json.slice(0, cut), json.slice(cut)]) {
      this.send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    this.send('content_block_stop', { index });
    return id;
  }

  stop(reason) {
    this.send('message_delta', { delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: 20 } });
    this.send('message_stop', {});
    this.end();
  }

  /** An `error` event mid-stream (how the API reports an overload after the 200). */
  error(type, message) {
    this.send('error', { error: { type, message } });
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

/** The label the user picked, read from AskUserQuestion's tool result
 *  (`…"<question>"="<label>"…`). */
function pickedLabel(result) {
  const m = result && /"[^"]*"="([^"]*)"/.exec(result.text);
  return m ? m[1] : null;
}

// ---- scenarios ----------------------------------------------------------------------------

const scenarios = {
  async hello(s) {
    s.start();
    await s.text(TEXT.hello);
    s.stop('end_turn');
  },

  async thinking(s) {
    s.start();
    s.thinking(TEXT.thinking);
    await s.text(TEXT.reasoned);
    s.stop('end_turn');
  },

  // Plan mode: a question, ToolSearch to load the deferred ExitPlanMode, the plan file written
  // where plan mode says, ExitPlanMode (the CLI reads the file into its `plan`).
  async plan(s, { results, body }) {
    s.start();
    if (!results.has('scope')) {
      await s.text(TEXT.planAsk);
      s.toolUse('scope', 'AskUserQuestion', { questions: [PLAN_QUESTION] });
      return s.stop('tool_use');
    }
    if (!results.has('load')) {
      s.toolUse('load', 'ToolSearch', { query: 'select:ExitPlanMode', max_results: 1 });
      return s.stop('tool_use');
    }
    const path = planFilePath(body);
    if (!results.has('write') && path) {
      await s.text(TEXT.planWrite);
      s.toolUse('write', 'Write', { file_path: path, content: `${PROPOSED_PLAN}\n` });
      return s.stop('tool_use');
    }
    if (!results.has('exit')) {
      s.toolUse('exit', 'ExitPlanMode', {});
      return s.stop('tool_use');
    }
    await s.text(results.get('exit').isError ? TEXT.planRejected : TEXT.planApproved);
    s.stop('end_turn');
  },

  async implement(s, { results }) {
    s.start();
    if (!results.has('impl')) {
      s.toolUse('impl', 'Bash', { command: IMPLEMENT_COMMAND, description: 'Write the notes file' });
      return s.stop('tool_use');
    }
    await s.text(results.get('impl').isError ? TEXT.bashDenied : TEXT.implemented);
    s.stop('end_turn');
  },

  async bash(s, { results }) {
    s.start();
    if (!results.has('bash')) {
      s.toolUse('bash', 'Bash', { command: BASH_COMMAND, description: 'Write the approval file' });
      return s.stop('tool_use');
    }
    await s.text(results.get('bash').isError ? TEXT.bashDenied : TEXT.bashDone);
    s.stop('end_turn');
  },

  // A question outside the plan flow; the answer is read back from the tool result.
  async question(s, { results }) {
    s.start();
    if (!results.has('ask')) {
      s.toolUse('ask', 'AskUserQuestion', { questions: [PLAN_QUESTION] });
      return s.stop('tool_use');
    }
    const label = pickedLabel(results.get('ask'));
    await s.text(label ? `You picked ${label}.` : 'You did not pick an option.');
    s.stop('end_turn');
  },

  async long(s) {
    s.start();
    const chunks = [];
    for (let i = 0; i < 200; i++) chunks.push(`word${i} of the long answer `);
    await s.text(null, { chunks, delayMs: 50 });
    if (!s.closed) s.stop('end_turn');
  },

  async 'error-stream'(s) {
    s.start();
    await s.text('Starting to answer');
    s.error('overloaded_error', 'The fake model failed mid-stream.');
  },

  async stall(s) {
    s.start();
    // Nothing more until the client goes away.
    await new Promise((resolve) => {
      const t = setInterval(() => { if (s.closed) { clearInterval(t); resolve(); } }, 100);
    });
  },
};

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

function json(res, status, obj, headers = {}) {
  const body = JSON.stringify(obj);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

function apiError(res, status, type, message) {
  // `x-should-retry: false` stops the CLI's SDK from retrying (it would back off for minutes).
  json(res, status, { type: 'error', error: { type, message } }, { 'x-should-retry': 'false' });
}

export function startFakeMessages({ port = 0, log = null } = {}) {
  const requests = [];
  // Streamed answers still open (a client that gave one up closes it: its query wound down).
  let streaming = 0;
  const say = typeof log === 'function' ? log : log ? (m) => process.stderr.write(`[fake-messages] ${m}\n`) : () => {};

  const server = http.createServer(async (req, res) => {
    let raw;
    try {
      raw = await readBody(req);
    } catch (e) {
      apiError(res, 400, 'invalid_request_error', `cannot decode body: ${e.message}`);
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

    if (req.method === 'POST' && /\/v1\/messages\/count_tokens\/?$/.test(url.pathname)) {
      json(res, 200, { input_tokens: 100 });
      return;
    }
    if (req.method !== 'POST' || !/\/v1\/messages\/?$/.test(url.pathname)) {
      apiError(res, 404, 'not_found_error', `fake-messages: no route for ${req.method} ${url.pathname}`);
      return;
    }
    if (!body || typeof body !== 'object' || !Array.isArray(body.messages)) {
      apiError(res, 400, 'invalid_request_error', 'fake-messages: body is not a Messages request');
      return;
    }

    const messages = body.messages;
    const tag = findTag(messages);
    // A request without tools (a title, a summary) is auxiliary: a short answer.
    const auxiliary = toolNames(body).length === 0;
    const name = auxiliary ? 'hello' : tag ? tag.name : 'hello';
    record.scenario = name;
    say(`  scenario ${name}`);

    if (!body.stream) {
      // A non-streaming call (the CLI's side requests): one plain message.
      json(res, 200, {
        id: nextId('msg'), type: 'message', role: 'assistant', model: body.model || 'fake',
        content: [{ type: 'text', text: TEXT.hello }], stop_reason: 'end_turn', stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 5 },
      });
      return;
    }
    if (name === 'error') {
      apiError(res, 500, 'api_error', 'The fake model is broken on purpose.');
      return;
    }
    const run = scenarios[name] || scenarios.hello;
    const s = new Stream(res, body.model || 'fake');
    const ctx = { body, messages, results: resultsAfter(messages, tag ? tag.index : -1) };
    streaming++;
    try {
      await run(s, ctx);
      say(`  scenario ${name} ${s.finished ? 'done' : 'stopped: the client went away'}`);
    } catch (e) {
      say(`  scenario ${name} threw: ${e.stack || e}`);
      s.end();
    } finally {
      streaming--;
    }
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const actual = server.address().port;
      resolve({
        url: `http://127.0.0.1:${actual}`,
        port: actual,
        requests,
        get streaming() { return streaming; },
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
  const fake = await startFakeMessages({ port, log: args.includes('--log') });
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
  process.stdout.write(`fake-messages listening on ${fake.url}\n`);
  const stop = () => fake.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
