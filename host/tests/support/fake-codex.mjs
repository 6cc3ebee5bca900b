#!/usr/bin/env node
// A stand-in for `codex app-server` that misbehaves on purpose (host/tests/codex_faults.rs).
//
// Speaks codex's stdio protocol (one JSON object a line, `{id, method, params}` requests, no
// `jsonrpc`). FAKE_CODEX_MODE picks the fault; FAKE_CODEX_LOG names a file that gets one JSON
// line per start (`{start:N, pid}`) and per message received (`{start:N, got:<msg>}`), plus
// `{start:N, note}` lines for what the test checks.
//
//   hang       reads stdin, never answers
//   crash      first start: answers initialize, thread/start, turn/start, starts a `sleep` in a
//              process group of its own (as codex runs its shells; `{note:"grandchild", pid}`),
//              then exits 3 (after a stderr line); later starts complete every turn
//   malformed  mid-turn prints `not json` and a 20 MB line, then completes the turn
//   toolcall   mid-turn sends server requests the host does not serve (item/tool/call with the
//              thread, and one naming no thread); completes the turn once both are refused
//   flood      at turn/start writes 50 MB to stderr (10 MB in lines, 40 MB without a newline),
//              then completes the turn
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';

const mode = process.env.FAKE_CODEX_MODE || 'crash';
const logFile = process.env.FAKE_CODEX_LOG;
const note = (o) => logFile && fs.appendFileSync(logFile, JSON.stringify(o) + '\n');
const starts = logFile && fs.existsSync(logFile)
  ? fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => l.startsWith('{"start"') && l.includes('"pid"') && !l.includes('"note"')).length + 1
  : 1;
note({ start: starts, pid: process.pid });

const send = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const THREAD = 't1';
let turns = 0;
let turnId = null;
const waiting = new Map(); // our server-request id -> resolve

function item(type, id, extra = {}) {
  return { type, id, ...extra };
}

function completeTurn(text = 'Fake codex says hi.') {
  const msgId = `msg-${turnId}`;
  send({ method: 'item/started', params: { threadId: THREAD, turnId, item: item('agentMessage', msgId, { text: '' }) } });
  send({ method: 'item/agentMessage/delta', params: { threadId: THREAD, turnId, itemId: msgId, delta: text } });
  send({ method: 'item/completed', params: { threadId: THREAD, turnId, item: item('agentMessage', msgId, { text }) } });
  send({ method: 'turn/completed', params: { threadId: THREAD, turn: { id: turnId, items: [], status: 'completed', error: null } } });
}

async function midTurn() {
  send({ method: 'turn/started', params: { threadId: THREAD, turn: { id: turnId, items: [], status: 'inProgress' } } });
  if (mode === 'crash' && starts === 1) {
    const sleeper = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    sleeper.unref();
    note({ start: starts, note: 'grandchild', pid: sleeper.pid });
    process.stderr.write('fake codex: about to crash on purpose\n');
    setTimeout(() => process.exit(3), 50);
    return;
  }
  if (mode === 'malformed') {
    process.stdout.write('not json\n');
    process.stdout.write('x'.repeat(20 * 1024 * 1024) + '\n');
  }
  if (mode === 'toolcall') {
    const ask = (id, method, params) => new Promise((resolve) => {
      waiting.set(id, resolve);
      send({ id, method, params });
    });
    const timeout = new Promise((r) => setTimeout(() => r(null), 3000));
    const a = await Promise.race([ask(100, 'item/tool/call', { threadId: THREAD, turnId, callId: 'c1', tool: 'x', arguments: {} }), timeout]);
    const b = await Promise.race([ask(101, 'account/chatgptAuthTokens/refresh', { reason: 'unauthorized' }), timeout]);
    note({ start: starts, note: 'replies', threadRequest: a, processRequest: b });
    if (!a?.error || !b?.error) {
      send({ method: 'turn/completed', params: { threadId: THREAD, turn: { id: turnId, status: 'failed', error: { message: 'fake codex: a server request was not refused' } } } });
      return;
    }
  }
  if (mode === 'flood') {
    const line = 'e'.repeat(1023) + '\n';
    const chunk = line.repeat(1024); // 1 MB
    for (let i = 0; i < 10; i++) await write(process.stderr, chunk);
    const raw = 'f'.repeat(1024 * 1024);
    for (let i = 0; i < 40; i++) await write(process.stderr, raw);
    await write(process.stderr, '\nfake codex: flood done\n');
  }
  completeTurn();
}

function write(stream, data) {
  return new Promise((resolve) => (stream.write(data) ? resolve() : stream.once('drain', resolve)));
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    note({ start: starts, note: 'unreadable', line: line.slice(0, 200) });
    return;
  }
  note({ start: starts, got: msg });
  if (mode === 'hang') return;
  if (mode === 'hang-turn' && msg.method === 'turn/start') return;
  if (msg.method === undefined && waiting.has(msg.id)) {
    waiting.get(msg.id)(msg);
    waiting.delete(msg.id);
    return;
  }
  switch (msg.method) {
    case 'initialize':
      return send({ id: msg.id, result: { userAgent: 'fake-codex/0', platformFamily: 'unix', platformOs: 'linux' } });
    case 'thread/start':
    case 'thread/resume':
      return send({ id: msg.id, result: { thread: { id: THREAD }, model: 'm' } });
    case 'turn/start':
      turns += 1;
      turnId = `u${turns}`;
      send({ id: msg.id, result: { turn: { id: turnId } } });
      midTurn();
      return;
    case 'turn/interrupt':
      send({ id: msg.id, result: {} });
      return send({ method: 'turn/completed', params: { threadId: THREAD, turn: { id: turnId, status: 'interrupted' } } });
    default:
      if (msg.id !== undefined && msg.method) send({ id: msg.id, error: { code: -32600, message: `fake: unknown ${msg.method}` } });
  }
});
rl.on('close', () => process.exit(0));
