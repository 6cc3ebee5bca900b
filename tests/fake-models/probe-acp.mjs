// Drives the real `claude-code-acp` (ACP over stdio, the pinned native Claude Code behind it)
// against the fake Anthropic Messages server and records every message as fixtures:
//   host/tests/fixtures/providers/acp/real/<step>.jsonl   ({"dir":"out"|"in","msg":…} a line)
//
//   node tests/fake-models/probe-acp.mjs          # ACP_AGENT overrides the agent command
//   PROBE_OUT=/some/dir node …                     # write the fixtures elsewhere
//   PROBE_VERBOSE=1 node …                         # echo traffic and the agent's stderr
//
// Exits non-zero if a step fails; kills every process group it started; gives up after 2 minutes.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startFakeMessages } from './anthropic-messages.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const AGENT = process.env.ACP_AGENT || path.join(repo, 'agents/node_modules/.bin/claude-code-acp');
const CLAUDE = path.join(repo, 'agents/node_modules/@anthropic-ai/claude-code-linux-x64/claude');
const OUT = process.env.PROBE_OUT || path.join(repo, 'host/tests/fixtures/providers/acp/real');
const VERBOSE = !!process.env.PROBE_VERBOSE;
const STEP_TIMEOUT = 30_000;

const groups = new Set();
function killAll() {
  for (const pid of groups) { try { process.kill(-pid, 'SIGKILL'); } catch {} }
  groups.clear();
}
process.on('exit', killAll);
const overall = setTimeout(() => { console.error('probe: overall 2-minute limit reached'); killAll(); process.exit(3); }, 120_000);
overall.unref();

/** The environment claude-code-acp needs offline (see host/tests/acp_real.rs). */
function agentEnv(home, fakeUrl) {
  return {
    ...process.env,
    HOME: home,
    ANTHROPIC_API_KEY: 'fake-key-not-secret',
    ANTHROPIC_BASE_URL: fakeUrl,
    CLAUDE_CODE_EXECUTABLE: CLAUDE,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    IS_SANDBOX: '1',
  };
}

class Agent {
  constructor(env) {
    this.child = spawn(AGENT, [], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    groups.add(this.child.pid);
    this.nextId = 1;
    this.pending = new Map();
    this.waiters = [];
    this.transcript = [];
    this.stderr = [];
    this.exited = null;
    this.onRequest = null;
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => this.#line(line));
    readline.createInterface({ input: this.child.stderr }).on('line', (line) => {
      this.stderr.push(line);
      if (VERBOSE) process.stderr.write(`  [agent stderr] ${line}\n`);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = { code, signal };
      for (const [, p] of this.pending) p.reject(new Error(`the agent exited (${code ?? signal}) before answering`));
      this.pending.clear();
    });
  }

  #line(line) {
    if (!line.trim()) return;
    let msg;
    try { msg = JSON.parse(line); } catch { this.transcript.push({ dir: 'in', raw: line }); return; }
    this.transcript.push({ dir: 'in', msg });
    if (VERBOSE) process.stderr.write(`  <- ${line.slice(0, 400)}\n`);
    if ('id' in msg && !('method' in msg)) {
      const p = this.pending.get(msg.id);
      if (p) { this.pending.delete(msg.id); msg.error ? p.reject(Object.assign(new Error(`${p.method}: ${JSON.stringify(msg.error)}`), { rpc: msg.error })) : p.resolve(msg.result); }
    } else if ('id' in msg && 'method' in msg) {
      Promise.resolve(this.onRequest?.(msg)).then((result) => {
        if (result !== undefined) this.send({ jsonrpc: '2.0', id: msg.id, result });
        else this.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `${msg.method} is not served by the probe` } });
      });
    }
    for (const w of [...this.waiters]) if (w.pred(msg)) { this.waiters.splice(this.waiters.indexOf(w), 1); w.resolve(msg); }
  }

  send(msg) {
    this.transcript.push({ dir: 'out', msg });
    if (VERBOSE) process.stderr.write(`  -> ${JSON.stringify(msg).slice(0, 400)}\n`);
    this.child.stdin.write(JSON.stringify(msg) + '\n');
  }

  /** A request; its promise is not bounded (session/prompt lasts the turn): see `bounded`. */
  call(method, params) {
    const id = this.nextId++;
    const p = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, method }));
    this.send({ jsonrpc: '2.0', id, method, params });
    return p;
  }

  request(method, params) { return withTimeout(this.call(method, params), STEP_TIMEOUT, `${method} answer`); }

  notify(method, params) { this.send({ jsonrpc: '2.0', method, params }); }

  waitFor(pred, what, ms = STEP_TIMEOUT) {
    for (const e of this.transcript) if (e.dir === 'in' && e.msg && pred(e.msg)) return Promise.resolve(e.msg);
    return withTimeout(new Promise((resolve) => this.waiters.push({ pred, resolve })), ms, what);
  }

  take() { const t = this.transcript; this.transcript = []; return t; }

  kill() {
    try { process.kill(-this.child.pid, 'SIGKILL'); } catch {}
    groups.delete(this.child.pid);
    return new Promise((r) => (this.exited ? r() : this.child.once('exit', r)));
  }
}

function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms); })]).finally(() => clearTimeout(t));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function save(step, transcript) {
  fs.mkdirSync(OUT, { recursive: true });
  const lines = transcript.map((e) => JSON.stringify(e.raw !== undefined ? { dir: e.dir, raw: e.raw } : { dir: e.dir, msg: e.msg }));
  fs.writeFileSync(path.join(OUT, `${step}.jsonl`), lines.join('\n') + '\n');
}

const text = (t) => [{ type: 'text', text: t }];
const selected = (optionId) => ({ outcome: { outcome: 'selected', optionId } });
const optionOf = (req, kind) => req.params.options.find((o) => o.kind === kind)?.optionId;

async function initialize(agent) {
  return agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'agent-session-probe', title: 'agent-session probe', version: '0.0.0' },
  });
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'acp-probe-'));
  const home = path.join(tmp, 'home');
  const work = path.join(tmp, 'workspace');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(work, { recursive: true });
  const fake = await startFakeMessages({ log: VERBOSE });
  const env = agentEnv(home, fake.url);
  console.log(`probe: agent ${AGENT}\nprobe: HOME ${home}\nprobe: workspace ${work}\nprobe: fake ${fake.url}\nprobe: fixtures ${OUT}`);

  let keep = !!process.env.PROBE_KEEP;
  let agent = new Agent(env);
  const step = async (name, fn) => {
    const t0 = Date.now();
    try {
      await fn();
      console.log(`probe: ${name} ok (${Date.now() - t0} ms)`);
    } catch (e) {
      console.error(`probe: ${name} FAILED: ${e.stack || e.message}`);
      const partial = path.join(tmp, `${name}.failed.jsonl`);
      fs.writeFileSync(partial, agent.transcript.map((x) => JSON.stringify(x)).join('\n') + '\n');
      console.error(`probe: partial transcript in ${partial}`);
      keep = true;
      throw e;
    }
  };

  let planSession;
  try {
    await step('01-initialize', async () => {
      await initialize(agent);
      const s = await agent.request('session/new', { cwd: work, mcpServers: [] });
      planSession = s.sessionId;
      await sleep(300);
      save('01-initialize', agent.take());
    });

    await step('02-plan-approved', async () => {
      let asked = 0;
      agent.onRequest = (req) => {
        if (req.method !== 'session/request_permission') return undefined;
        asked++;
        return selected(optionOf(req, 'allow_once'));
      };
      await agent.request('session/set_mode', { sessionId: planSession, modeId: 'plan' });
      const r = await withTimeout(agent.call('session/prompt', { sessionId: planSession, prompt: text('Plan a change [fake:plan]') }), STEP_TIMEOUT, 'plan turn');
      if (r.stopReason !== 'end_turn') throw new Error(`stopReason ${r.stopReason}`);
      if (asked !== 1) throw new Error(`${asked} permission requests`);
      await sleep(300);
      save('02-plan-approved', agent.take());
    });

    await step('03-bash-approval', async () => {
      agent.onRequest = (req) => (req.method === 'session/request_permission' ? selected(optionOf(req, 'allow_once')) : undefined);
      const r = await withTimeout(agent.call('session/prompt', { sessionId: planSession, prompt: text('Run it [fake:bash]') }), STEP_TIMEOUT, 'bash turn');
      if (r.stopReason !== 'end_turn') throw new Error(`stopReason ${r.stopReason}`);
      if (!fs.existsSync(path.join(work, 'APPROVED.md'))) throw new Error('APPROVED.md was not written');
      await sleep(300);
      save('03-bash-approval', agent.take());
    });

    await step('04-plan-rejected', async () => {
      const s = await agent.request('session/new', { cwd: work, mcpServers: [] });
      agent.onRequest = (req) => (req.method === 'session/request_permission' ? selected(optionOf(req, 'reject_once')) : undefined);
      await agent.request('session/set_mode', { sessionId: s.sessionId, modeId: 'plan' });
      const failed = await withTimeout(
        agent.call('session/prompt', { sessionId: s.sessionId, prompt: text('Plan a change [fake:plan]') }).then(() => null, (e) => e),
        STEP_TIMEOUT, 'rejected plan turn');
      if (!failed) throw new Error('a rejected plan ended the turn normally (the runtime reads a failure here)');
      await sleep(300);
      save('04-plan-rejected', agent.take());
    });

    await step('05-cancel', async () => {
      agent.onRequest = () => undefined;
      const prompt = withTimeout(agent.call('session/prompt', { sessionId: planSession, prompt: text('Write a lot [fake:long]') }), STEP_TIMEOUT, 'long turn');
      let chunks = 0;
      await agent.waitFor((m) => m.params?.update?.sessionUpdate === 'agent_message_chunk' && m.params.update.content?.text && ++chunks >= 5, 'five chunks');
      agent.notify('session/cancel', { sessionId: planSession });
      const r = await prompt;
      if (r.stopReason !== 'cancelled') throw new Error(`stopReason ${r.stopReason}`);
      await sleep(300);
      save('05-cancel', agent.take());
    });

    await step('06-restart-load', async () => {
      await agent.kill();
      agent = new Agent(env);
      await initialize(agent);
      await agent.request('session/load', { sessionId: planSession, cwd: work, mcpServers: [] });
      const r = await withTimeout(agent.call('session/prompt', { sessionId: planSession, prompt: text('Say hello [fake:hello]') }), STEP_TIMEOUT, 'hello turn');
      if (r.stopReason !== 'end_turn') throw new Error(`stopReason ${r.stopReason}`);
      await sleep(300);
      save('06-restart-load', agent.take());
    });
  } finally {
    await agent.kill();
    killAll();
    await fake.close();
    if (keep) console.log(`probe: kept ${tmp}`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log('probe: all steps ok');
}

main().then(() => process.exit(0), (e) => { console.error(`probe: failed: ${e.message}`); killAll(); process.exit(1); });
