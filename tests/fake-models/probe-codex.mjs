// Drives the real `codex app-server` (stdio, JSON lines) against the fake Responses server
// through a plan-mode scenario and records every message as fixtures:
//   host/tests/fixtures/providers/codex/real/<step>.jsonl   ({"dir":"out"|"in","msg":…} a line)
//
//   node tests/fake-models/probe-codex.mjs            # CODEX_BIN overrides the binary
//   PROBE_OUT=/some/dir node …                         # write the fixtures elsewhere
//   PROBE_VERBOSE=1 node …                             # echo traffic and codex stderr
//
// Exits non-zero if a step fails; kills every child it started; gives up after 2 minutes.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startFakeResponses } from './openai-responses.mjs';
import { writeCodexHome, codexEnv, CODEX_MODEL } from './codex-home.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const BIN = process.env.CODEX_BIN || path.join(repo, 'agents/node_modules/.bin/codex');
const OUT = process.env.PROBE_OUT || path.join(repo, 'host/tests/fixtures/providers/codex/real');
const VERBOSE = !!process.env.PROBE_VERBOSE;
const STEP_TIMEOUT = 30_000;

const children = new Set();
function killAll() {
  for (const c of children) { try { c.kill('SIGKILL'); } catch {} }
  children.clear();
}
process.on('exit', killAll);
const overall = setTimeout(() => { console.error('probe: overall 2-minute limit reached'); killAll(); process.exit(3); }, 120_000);
overall.unref();

class Codex {
  constructor(home) {
    this.child = spawn(BIN, ['app-server'], { env: codexEnv(home), stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(this.child);
    this.nextId = 0;
    this.pending = new Map();
    this.waiters = [];
    this.transcript = [];
    this.stderr = [];
    this.exited = null;
    this.onServerRequest = null;
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => this.#line(line));
    readline.createInterface({ input: this.child.stderr }).on('line', (line) => {
      this.stderr.push(line);
      if (VERBOSE) process.stderr.write(`  [codex stderr] ${line}\n`);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = { code, signal };
      children.delete(this.child);
      for (const [, p] of this.pending) p.reject(new Error(`codex exited (${code ?? signal}) before answering`));
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
    } else if ('id' in msg && 'method' in msg && this.onServerRequest) {
      Promise.resolve(this.onServerRequest(msg)).then((result) => { if (result !== undefined) this.send({ id: msg.id, result }); });
    }
    for (const w of [...this.waiters]) if (w.pred(msg)) { this.waiters.splice(this.waiters.indexOf(w), 1); w.resolve(msg); }
  }

  send(msg) {
    this.transcript.push({ dir: 'out', msg });
    if (VERBOSE) process.stderr.write(`  -> ${JSON.stringify(msg).slice(0, 400)}\n`);
    this.child.stdin.write(JSON.stringify(msg) + '\n');
  }

  request(method, params) {
    const id = this.nextId++;
    const p = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, method }));
    this.send({ id, method, params });
    return withTimeout(p, STEP_TIMEOUT, `${method} answer`);
  }

  notify(method, params) { this.send(params === undefined ? { method } : { method, params }); }

  /** Resolves with the first message matching `pred`, looking first at what already arrived
   *  since the last take() (a reply and the notification after it can land in one read). */
  waitFor(pred, what, ms = STEP_TIMEOUT) {
    for (const e of this.transcript) if (e.dir === 'in' && e.msg && pred(e.msg)) return Promise.resolve(e.msg);
    return withTimeout(new Promise((resolve) => this.waiters.push({ pred, resolve })), ms, what);
  }

  /** Resets the transcript; returns the previous one. */
  take() { const t = this.transcript; this.transcript = []; return t; }

  kill() { try { this.child.kill('SIGKILL'); } catch {} return new Promise((r) => (this.exited ? r() : this.child.once('exit', r))); }
}

function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms); })]).finally(() => clearTimeout(t));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const isNote = (method, extra = () => true) => (m) => m.method === method && !('id' in m) && extra(m.params || {});

function save(step, transcript) {
  fs.mkdirSync(OUT, { recursive: true });
  const lines = transcript.map((e) => JSON.stringify(e.raw !== undefined ? { dir: e.dir, raw: e.raw } : { dir: e.dir, msg: e.msg }));
  fs.writeFileSync(path.join(OUT, `${step}.jsonl`), lines.join('\n') + '\n');
}

function textInput(text) { return [{ type: 'text', text, text_elements: [] }]; }

async function turn(codex, threadId, text, extra = {}) {
  const res = await codex.request('turn/start', { threadId, input: textInput(text), ...extra });
  return res.turn.id;
}

const completedTurn = (turnId) => isNote('turn/completed', (p) => p.turn && p.turn.id === turnId);

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-probe-'));
  const home = path.join(tmp, 'codex-home');
  const work = path.join(tmp, 'workspace');
  fs.mkdirSync(work, { recursive: true });
  const fake = await startFakeResponses({ log: VERBOSE });
  writeCodexHome(home, fake.url);
  console.log(`probe: codex ${BIN}\nprobe: CODEX_HOME ${home}\nprobe: workspace ${work}\nprobe: fake ${fake.url}\nprobe: fixtures ${OUT}`);

  const results = [];
  let keep = !!process.env.PROBE_KEEP;
  const step = async (name, fn) => {
    const t0 = Date.now();
    try {
      await fn();
      results.push([name, 'ok', Date.now() - t0]);
      console.log(`probe: ${name} ok (${Date.now() - t0} ms)`);
    } catch (e) {
      results.push([name, `FAILED: ${e.message}`]);
      console.error(`probe: ${name} FAILED: ${e.stack || e.message}`);
      const partial = path.join(tmp, `${name}.failed.jsonl`);
      fs.writeFileSync(partial, codex.transcript.map((x) => JSON.stringify(x)).join('\n') + '\n');
      console.error(`probe: partial transcript in ${partial}`);
      keep = true;
      throw e;
    }
  };

  let codex = new Codex(home);
  let threadId;
  let stderrAll = [];
  try {
    await step('01-initialize', async () => {
      await codex.request('initialize', {
        clientInfo: { name: 'agent_session_probe', title: 'agent-session probe', version: '0.0.0' },
        capabilities: { experimentalApi: true },
      });
      codex.notify('initialized');
      await sleep(300);
      save('01-initialize', codex.take());
    });

    await step('02-thread-start', async () => {
      const res = await codex.request('thread/start', { cwd: work, approvalPolicy: 'untrusted', sandbox: 'workspace-write' });
      threadId = res.thread.id;
      await sleep(300);
      save('02-thread-start', codex.take());
    });

    await step('03-plan-turn', async () => {
      let asked = null;
      codex.onServerRequest = (req) => {
        if (req.method === 'item/tool/requestUserInput') {
          asked = req.params;
          const id = req.params.questions[0].id;
          return { answers: { [id]: { answers: ['Minimal'] } } };
        }
        return undefined;
      };
      const turnId = await turn(codex, threadId, 'Plan a change [fake:plan]', {
        collaborationMode: { mode: 'plan', settings: { model: CODEX_MODEL, reasoning_effort: 'medium', developer_instructions: null } },
      });
      await codex.waitFor(completedTurn(turnId), 'plan turn/completed');
      if (!asked) throw new Error('no item/tool/requestUserInput came');
      save('03-plan-turn', codex.take());
    });

    await step('04-implement-turn', async () => {
      let approvals = 0;
      codex.onServerRequest = (req) => {
        if (/requestApproval$/.test(req.method)) { approvals++; return { decision: 'accept' }; }
        return undefined;
      };
      let planUpdates = 0;
      const counting = codex.waitFor((m) => m.method === 'turn/plan/updated' && ++planUpdates >= 2, 'two turn/plan/updated');
      // The collaboration mode is sticky: without collaborationMode this turn would still be in
      // plan mode (and update_plan refused), so default mode is asked for explicitly.
      const turnId = await turn(codex, threadId, 'Implement the plan [fake:implement]', {
        collaborationMode: { mode: 'default', settings: { model: CODEX_MODEL, reasoning_effort: 'medium', developer_instructions: null } },
      });
      await codex.waitFor(completedTurn(turnId), 'implement turn/completed');
      await counting;
      if (!approvals) throw new Error('no approval request came');
      if (!fs.existsSync(path.join(work, 'NOTES.md'))) throw new Error('NOTES.md was not written');
      save('04-implement-turn', codex.take());
    });

    await step('04b-patch-turn', async () => {
      let approvals = 0;
      codex.onServerRequest = (req) => {
        if (/requestApproval$/.test(req.method)) { approvals++; return { decision: 'accept' }; }
        return undefined;
      };
      const turnId = await turn(codex, threadId, 'Patch a file [fake:patch]');
      await codex.waitFor(completedTurn(turnId), 'patch turn/completed');
      if (!fs.existsSync(path.join(work, 'PATCHED.md'))) throw new Error('PATCHED.md was not written');
      save('04b-patch-turn', codex.take());
    });

    await step('04c-reasoning-turn', async () => {
      codex.onServerRequest = null;
      const turnId = await turn(codex, threadId, 'Think first [fake:reasoning]');
      await codex.waitFor(completedTurn(turnId), 'reasoning turn/completed');
      save('04c-reasoning-turn', codex.take());
    });

    await step('05-long-interrupt', async () => {
      codex.onServerRequest = null;
      const turnId = await turn(codex, threadId, 'Write a lot [fake:long]');
      let deltas = 0;
      await codex.waitFor((m) => m.method === 'item/agentMessage/delta' && ++deltas >= 5, 'five agentMessage deltas');
      await codex.request('turn/interrupt', { threadId, turnId });
      const done = await codex.waitFor(completedTurn(turnId), 'interrupted turn/completed');
      if (done.params.turn.status !== 'interrupted') throw new Error(`status ${done.params.turn.status}`);
      await sleep(300);
      save('05-long-interrupt', codex.take());
    });

    await step('06-error-turn', async () => {
      const turnId = await turn(codex, threadId, 'Fail please [fake:error]');
      await codex.waitFor(completedTurn(turnId), 'error turn/completed');
      await sleep(300);
      save('06-error-turn', codex.take());
    });

    await step('06b-error-stream-turn', async () => {
      const turnId = await turn(codex, threadId, 'Fail mid-stream please [fake:error-stream]');
      await codex.waitFor(completedTurn(turnId), 'error-stream turn/completed');
      await sleep(300);
      save('06b-error-stream-turn', codex.take());
    });

    await step('06c-stall-interrupt', async () => {
      const before = fake.requests.length;
      const turnId = await turn(codex, threadId, 'Hang please [fake:stall]');
      const t0 = Date.now();
      while (fake.requests.length === before && Date.now() - t0 < 10_000) await sleep(50);
      await sleep(1500);
      await codex.request('turn/interrupt', { threadId, turnId });
      await codex.waitFor(completedTurn(turnId), 'stalled turn/completed after interrupt', 15_000);
      await sleep(300);
      save('06c-stall-interrupt', codex.take());
    });

    await step('07-restart-resume', async () => {
      stderrAll.push(...codex.stderr);
      await codex.kill();
      codex = new Codex(home);
      await codex.request('initialize', {
        clientInfo: { name: 'agent_session_probe', title: 'agent-session probe', version: '0.0.0' },
        capabilities: { experimentalApi: true },
      });
      codex.notify('initialized');
      await codex.request('thread/resume', { threadId });
      await sleep(300);
      const turnId = await turn(codex, threadId, 'Say hello [fake:hello]');
      await codex.waitFor(completedTurn(turnId), 'hello turn/completed');
      await sleep(300);
      save('07-restart-resume', codex.take());
    });
  } finally {
    stderrAll.push(...codex.stderr);
    await codex.kill();
    killAll();
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, 'stderr.txt'), stderrAll.join('\n') + '\n');
    fs.writeFileSync(path.join(tmp, 'model-requests.json'), JSON.stringify(fake.requests.map((r) => ({
      method: r.method, path: r.path, scenario: r.scenario,
      headers: Object.fromEntries(Object.entries(r.headers).filter(([k]) => k !== 'authorization')),
      body: r.body,
    })), null, 1));
    await fake.close();
    if (keep) console.log(`probe: kept ${tmp} (model-requests.json = every request the fake got)`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log('probe: all steps ok');
}

main().then(() => process.exit(0), (e) => { console.error(`probe: failed: ${e.message}`); killAll(); process.exit(1); });
