// Drives the real Claude Code CLI (stream-json over stdio) against the fake Anthropic Messages
// server through plan mode, questions, approvals, interrupts, errors and a resume after a kill,
// and records every line as fixtures:
//   host/tests/fixtures/providers/claude/real/<step>.jsonl   ({"dir":"out"|"in","msg":…} a line)
//   host/tests/fixtures/providers/claude/real/model-requests.jsonl  (what the CLI sent the model,
//     long texts cut)
//
//   node tests/fake-models/probe-claude.mjs            # CLAUDE_BIN overrides the binary
//   PROBE_OUT=/some/dir node …                          # write the fixtures elsewhere
//   PROBE_VERBOSE=1 node …                              # echo traffic and the CLI's stderr
//
// Exits non-zero if a step fails; SIGKILLs every child it started; gives up after 3 minutes.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startFakeMessages, PLAN_QUESTION } from './anthropic-messages.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
export const CLAUDE_BIN_DEFAULT = path.join(repo, 'agents/node_modules/@anthropic-ai/claude-code-linux-x64/claude');
const BIN = process.env.CLAUDE_BIN || CLAUDE_BIN_DEFAULT;
const OUT = process.env.PROBE_OUT || path.join(repo, 'host/tests/fixtures/providers/claude/real');
const VERBOSE = !!process.env.PROBE_VERBOSE;
const STEP_TIMEOUT = 30_000;

const children = new Set();
function killAll() {
  for (const c of children) { try { c.kill('SIGKILL'); } catch {} }
  children.clear();
}
process.on('exit', killAll);
const overall = setTimeout(() => { console.error('probe: overall 3-minute limit reached'); killAll(); process.exit(3); }, 180_000);
overall.unref();

/** The environment Claude Code needs offline (a fresh HOME, the fake as its API). */
export function claudeEnv(home, url) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: 'fake-key-not-secret',
    ANTHROPIC_BASE_URL: url,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
  };
}

class Claude {
  constructor({ home, cwd, url, extra = [] }) {
    const args = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose',
      '--include-partial-messages', '--permission-prompt-tool', 'stdio', ...extra];
    this.child = spawn(BIN, args, { cwd, env: claudeEnv(home, url), stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(this.child);
    this.lines = [];
    this.waiters = [];
    this.stderr = [];
    this.exited = null;
    this.onRequest = null;
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => this.#line(line));
    readline.createInterface({ input: this.child.stderr }).on('line', (line) => {
      this.stderr.push(line);
      if (VERBOSE) process.stderr.write(`  [claude stderr] ${line}\n`);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = { code, signal };
      children.delete(this.child);
      for (const w of this.waiters) w.reject(new Error(`claude exited (${code ?? signal})`));
      this.waiters = [];
    });
  }

  #line(line) {
    if (!line.trim()) return;
    let msg;
    try { msg = JSON.parse(line); } catch { throw new Error(`claude wrote a line that is not JSON: ${line.slice(0, 200)}`); }
    this.lines.push({ dir: 'in', msg });
    if (VERBOSE && msg.type !== 'stream_event') process.stderr.write(`  << ${line.slice(0, 300)}\n`);
    if (msg.type === 'control_request' && this.onRequest) this.onRequest(msg);
    for (const w of [...this.waiters]) {
      if (w.pred(msg)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        clearTimeout(w.timer);
        w.resolve(msg);
      }
    }
  }

  send(msg) {
    this.lines.push({ dir: 'out', msg });
    if (VERBOSE) process.stderr.write(`  >> ${JSON.stringify(msg).slice(0, 300)}\n`);
    this.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  user(text) {
    this.send({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] }, parent_tool_use_id: null, session_id: '' });
  }

  control(request) {
    const request_id = `host-${Math.random().toString(36).slice(2, 10)}`;
    this.send({ type: 'control_request', request_id, request });
    return this.waitFor((m) => m.type === 'control_response' && m.response?.request_id === request_id);
  }

  respond(req, response) {
    this.send({ type: 'control_response', response: { subtype: 'success', request_id: req.request_id, response } });
  }

  waitFor(pred, what = 'a message') {
    return new Promise((resolve, reject) => {
      if (this.exited) return reject(new Error(`claude exited before ${what}`));
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), STEP_TIMEOUT);
      this.waiters.push({ pred, resolve, reject, timer });
    });
  }

  /** The lines since the last call (one fixture). */
  take() {
    const out = this.lines;
    this.lines = [];
    return out;
  }

  kill() {
    try { this.child.kill('SIGKILL'); } catch {}
    return new Promise((r) => (this.exited ? r() : this.child.once('exit', () => r())));
  }
}

const isResult = (m) => m.type === 'result';

/** A can_use_tool answer: allow (AskUserQuestion with `label` as the answer; ExitPlanMode with
 *  the mode change) or deny. */
function answer(claude, req, { allow = true, label = 'Minimal' } = {}) {
  const r = req.request;
  if (!allow) return claude.respond(req, { behavior: 'deny', message: 'The user said no.' });
  if (r.tool_name === 'AskUserQuestion') {
    return claude.respond(req, { behavior: 'allow', updatedInput: { ...r.input, answers: { [PLAN_QUESTION.question]: label } } });
  }
  if (r.tool_name === 'ExitPlanMode') {
    return claude.respond(req, { behavior: 'allow', updatedInput: r.input, updatedPermissions: [{ type: 'setMode', mode: 'default', destination: 'session' }] });
  }
  return claude.respond(req, { behavior: 'allow', updatedInput: r.input });
}

function write(name, lines) {
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, `${name}.jsonl`), lines.map((l) => JSON.stringify({ dir: l.dir, msg: l.msg })).join('\n') + '\n');
  console.log(`probe: ${name}: ${lines.length} lines`);
}

/** What the CLI sent the model, long texts cut (the system prompt and its notes run to 60 KB). */
function summarize(rec) {
  // Cut, but keep the sentence that names the plan file (the fake reads its path from it).
  const cut = (t) => {
    if (typeof t !== 'string' || t.length <= 300) return t;
    const plan = /(create your plan at \S+|plan file already exists at \S+)/.exec(t);
    return `${t.slice(0, 300)}… (${t.length} chars${plan ? `; …${plan[1]}…` : ''})`;
  };
  const block = (b) => {
    if (!b || typeof b !== 'object') return b;
    const o = { ...b };
    if ('text' in o) o.text = cut(o.text);
    if (typeof o.content === 'string') o.content = cut(o.content);
    else if (Array.isArray(o.content)) o.content = o.content.map(block);
    return o;
  };
  const body = rec.body && typeof rec.body === 'object' ? rec.body : {};
  return {
    method: rec.method,
    path: rec.path,
    query: rec.query,
    headers: Object.fromEntries(Object.entries(rec.headers).filter(([k]) => ['anthropic-version', 'anthropic-beta', 'user-agent', 'x-app', 'content-type'].includes(k))),
    scenario: rec.scenario,
    model: body.model,
    stream: body.stream,
    max_tokens: body.max_tokens,
    tools: (body.tools || []).map((t) => t.name),
    system: (Array.isArray(body.system) ? body.system : []).map(block),
    messages: (body.messages || []).map((m) => ({ role: m.role, content: typeof m.content === 'string' ? cut(m.content) : (m.content || []).map(block) })),
  };
}

async function main() {
  const fake = await startFakeMessages({ log: VERBOSE });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-claude-'));
  const home = path.join(dir, 'home');
  const cwd = path.join(dir, 'workspace');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(cwd, { recursive: true });
  let claude = new Claude({ home, cwd, url: fake.url, extra: ['--permission-mode', 'plan'] });
  try {
    // 01: plan mode: question answered, plan written, ExitPlanMode allowed (mode -> default),
    // then the implementation with one Bash approval.
    claude.onRequest = (req) => req.request.subtype === 'can_use_tool' && answer(claude, req);
    claude.user('Plan a change [fake:plan]');
    const first = await claude.waitFor(isResult, 'the plan turn result');
    const sessionId = first.session_id;
    claude.user('Implement the plan.');
    await claude.waitFor(isResult, 'the implement turn result');
    if (!fs.existsSync(path.join(cwd, 'NOTES.md'))) throw new Error('the approved command did not run');
    write('01-plan-implement', claude.take());

    // 02: denials: a Bash command, then (plan mode again, set mid-session) ExitPlanMode.
    claude.onRequest = (req) => req.request.subtype === 'can_use_tool' &&
      answer(claude, req, { allow: req.request.tool_name === 'AskUserQuestion', label: 'Thorough' });
    claude.user('Run a command [fake:bash]');
    await claude.waitFor(isResult, 'the bash turn result');
    await claude.control({ subtype: 'set_permission_mode', mode: 'plan' });
    claude.user('Plan again [fake:plan]');
    await claude.waitFor(isResult, 'the rejected plan turn result');
    write('02-deny', claude.take());

    // 03: interrupts: mid-text, and with a question pending.
    await claude.control({ subtype: 'set_permission_mode', mode: 'default' });
    claude.onRequest = null;
    claude.user('Tell me a long story [fake:long]');
    let deltas = 0;
    await claude.waitFor((m) => m.type === 'stream_event' && m.event?.delta?.type === 'text_delta' && ++deltas >= 5, 'five text deltas');
    await claude.control({ subtype: 'interrupt' });
    await claude.waitFor(isResult, 'the interrupted long turn result');
    claude.user('Ask me [fake:question]');
    await claude.waitFor((m) => m.type === 'control_request' && m.request?.tool_name === 'AskUserQuestion', 'the question');
    await claude.control({ subtype: 'interrupt' });
    await claude.waitFor(isResult, 'the interrupted question turn result');
    write('03-interrupt', claude.take());

    // 04: a question answered outside plan mode, thinking, the model's errors.
    claude.onRequest = (req) => req.request.subtype === 'can_use_tool' && answer(claude, req, { label: 'Thorough' });
    claude.user('Ask me [fake:question]');
    await claude.waitFor(isResult, 'the question turn result');
    claude.user('Think first [fake:thinking]');
    await claude.waitFor(isResult, 'the thinking turn result');
    claude.user('Fail [fake:error]');
    await claude.waitFor(isResult, 'the error turn result');
    claude.user('Fail mid-stream [fake:error-stream]');
    await claude.waitFor(isResult, 'the error-stream turn result');
    write('04-question-thinking-errors', claude.take());

    // 05: a stalled model, interrupted.
    claude.user('Stall [fake:stall]');
    await claude.waitFor((m) => m.type === 'stream_event' && m.event?.type === 'message_start', 'the stalled message start');
    await claude.control({ subtype: 'interrupt' });
    await claude.waitFor(isResult, 'the interrupted stall result');
    write('05-stall-interrupt', claude.take());

    // 06: plan mode, a question pending, the process killed; resumed with --resume (no
    // --permission-mode: what the session restores by itself), then a plain turn.
    await claude.control({ subtype: 'set_permission_mode', mode: 'plan' });
    claude.onRequest = null;
    claude.user('Ask me before the crash [fake:question]');
    await claude.waitFor((m) => m.type === 'control_request' && m.request?.tool_name === 'AskUserQuestion', 'the question before the kill');
    await claude.kill();
    write('06a-killed', claude.take());
    claude = new Claude({ home, cwd, url: fake.url, extra: ['--resume', sessionId] });
    claude.onRequest = (req) => req.request.subtype === 'can_use_tool' && answer(claude, req);
    claude.user('Say hello [fake:hello]');
    const resumed = await claude.waitFor(isResult, 'the resumed turn result');
    if (resumed.session_id !== sessionId) console.log(`probe: note: the resumed session id is ${resumed.session_id}, was ${sessionId}`);
    claude.child.stdin.end();
    await new Promise((r) => (claude.exited ? r() : claude.child.once('exit', r)));
    write('06b-resumed', claude.take());

    fs.writeFileSync(path.join(OUT, 'model-requests.jsonl'), fake.requests.map((r) => JSON.stringify(summarize(r))).join('\n') + '\n');
    fs.writeFileSync(path.join(OUT, 'stderr.txt'), claude.stderr.join('\n') + '\n');
    console.log(`probe: ${fake.requests.length} model requests`);
  } finally {
    await claude.kill();
    killAll();
    await fake.close();
    if (!process.env.PROBE_KEEP) fs.rmSync(dir, { recursive: true, force: true });
    else console.log(`probe: kept ${dir}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(() => process.exit(0), (e) => { console.error(`probe: ${e.stack || e}`); killAll(); process.exit(1); });
}
