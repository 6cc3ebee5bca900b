#!/usr/bin/env node
// A stand-in for `claude -p --input-format stream-json --output-format stream-json` that
// misbehaves on purpose (host/tests/claude_faults.rs).
//
// Speaks Claude Code's stream-json (one JSON object a line: `system/init` at each turn, then
// `assistant` messages, a `result`; `control_request` / `control_response` both ways).
// FAKE_CLAUDE_MODE picks the fault; FAKE_CLAUDE_LOG names a file that gets one JSON line per
// start (`{start:N, pid, argv}`) and per message received (`{start:N, got:<msg>}`), plus
// `{start:N, note}` lines for what the test checks.
//
//   crash      first start: at the first user message starts a `sleep` in a process group of
//              its own (as Claude Code's Bash tool runs its shells; `{note:"grandchild", pid}`),
//              writes a stderr line and exits 3; later starts complete every turn
//   malformed  mid-turn prints `not json` and a 20 MB line, then completes the turn
//   control    mid-turn sends a control request the host does not serve (`hook_callback`);
//              completes the turn once it is refused
//   resume     a start with `--resume` answers `No conversation found` and exits 1; a start
//              without it completes every turn
//   deaf       mid-turn ignores `interrupt` (answers it, never ends the turn)
//   badask     mid-turn asks an AskUserQuestion with no questions (its can_use_tool too); notes
//              the answer (`{note:"badask", answer}`) and completes the turn
//   flood      at the first user message writes 50 MB to stderr (10 MB in lines, 40 MB without a
//              newline), then completes the turn
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';

const mode = process.env.FAKE_CLAUDE_MODE || 'crash';
const logFile = process.env.FAKE_CLAUDE_LOG;
const note = (o) => logFile && fs.appendFileSync(logFile, JSON.stringify(o) + '\n');
const starts = logFile && fs.existsSync(logFile)
  ? fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes('"argv"')).length + 1
  : 1;
const argv = process.argv.slice(2);
note({ start: starts, pid: process.pid, argv });

const send = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const resumeAt = argv.indexOf('--resume');
const SESSION = resumeAt >= 0 ? argv[resumeAt + 1] : `fake-session-${process.pid}`;
const modeAt = argv.indexOf('--permission-mode');
let permissionMode = modeAt >= 0 ? argv[modeAt + 1] : 'default';
let turns = 0;
const waiting = new Map(); // our control request id -> resolve

if (mode === 'resume' && resumeAt >= 0) {
  send({ type: 'result', subtype: 'error_during_execution', is_error: true, session_id: SESSION, errors: [`No conversation found with session ID: ${SESSION}`] });
  process.exit(1);
}

function complete(text = 'Fake claude says hi.') {
  const id = `msg-${process.pid}-${turns}`;
  send({ type: 'stream_event', event: { type: 'message_start', message: { id } }, session_id: SESSION });
  send({ type: 'stream_event', event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, session_id: SESSION });
  send({ type: 'assistant', message: { id, role: 'assistant', model: 'fake-claude', content: [{ type: 'text', text }] }, session_id: SESSION });
  send({ type: 'result', subtype: 'success', is_error: false, result: text, session_id: SESSION });
}

function ask(request) {
  const id = `fake-${Math.random().toString(36).slice(2)}`;
  send({ type: 'control_request', request_id: id, request });
  return new Promise((resolve) => waiting.set(id, resolve));
}

async function turn() {
  turns++;
  send({ type: 'system', subtype: 'init', session_id: SESSION, model: 'fake-claude', permissionMode, tools: [] });
  if (mode === 'crash' && starts === 1) {
    const g = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    note({ start: starts, note: 'grandchild', pid: g.pid });
    process.stderr.write('fake claude: crashing on purpose\n');
    setTimeout(() => process.exit(3), 50);
    return;
  }
  if (mode === 'malformed') {
    process.stdout.write('not json\n');
    process.stdout.write('x'.repeat(20 * 1024 * 1024) + '\n');
  }
  if (mode === 'control') {
    const answer = await ask({ subtype: 'hook_callback', callback_id: 'cb1', input: {} });
    note({ start: starts, note: 'refused', answer });
  }
  if (mode === 'badask') {
    const tool = { type: 'tool_use', id: 'toolu_bad', name: 'AskUserQuestion', input: { questions: [] } };
    send({ type: 'assistant', message: { id: `ask-${process.pid}`, role: 'assistant', model: 'fake-claude', content: [tool] }, session_id: SESSION });
    const answer = await ask({ subtype: 'can_use_tool', tool_name: 'AskUserQuestion', input: tool.input, tool_use_id: tool.id });
    note({ start: starts, note: 'badask', answer });
  }
  if (mode === 'flood') {
    const line = 'e'.repeat(1023) + '\n';
    for (let i = 0; i < 10 * 1024; i++) process.stderr.write(line);
    const chunk = 'f'.repeat(1024 * 1024);
    for (let i = 0; i < 40; i++) process.stderr.write(chunk);
  }
  if (mode === 'deaf') return; // never ends the turn
  complete();
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  note({ start: starts, got: msg });
  if (msg.type === 'user') void turn();
  if (msg.type === 'control_request') {
    const r = msg.request || {};
    if (r.subtype === 'set_permission_mode') {
      permissionMode = r.mode;
      send({ type: 'control_response', response: { subtype: 'success', request_id: msg.request_id, response: { mode: r.mode } } });
      send({ type: 'system', subtype: 'status', status: null, permissionMode: r.mode, session_id: SESSION });
    } else if (r.subtype === 'interrupt') {
      send({ type: 'control_response', response: { subtype: 'success', request_id: msg.request_id, response: {} } });
      if (mode !== 'deaf') send({ type: 'result', subtype: 'error_during_execution', is_error: true, session_id: SESSION });
    }
  }
  if (msg.type === 'control_response') {
    const id = msg.response && msg.response.request_id;
    const resolve = waiting.get(id);
    if (resolve) { waiting.delete(id); resolve(msg.response); }
  }
});
