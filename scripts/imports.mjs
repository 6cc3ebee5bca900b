#!/usr/bin/env node
// Import-graph check: for each Rust crate source directory given (e.g. `host/src`), builds the
// graph of its top-level modules from `use crate::…`/`use super::…`/`self::…` and `crate::a::b`
// paths in code (test modules and `#[cfg(test)]` items left out; `super` inside an inline
// `mod x { … }` is resolved from that module; a name the crate root only re-exports counts as
// the module that defines it, since the root's `mod` and `pub use` lines are its facade, not
// imports), and exits 1 printing the cycle if the graph has one, else prints the layers it draws (each module
// imports only from layers below it). It also fails if a file of the crate's package (not the
// client crate itself) references the client crate: `agent_session::` in code or an
// `agent-session` dependency in its Cargo.toml (`agent_session_wire` is fine).
// Every module folder under a directory given is checked the same way (src/core/session,
// host/src/streams, …): its own file (mod.rs) and its children are the nodes, and a folder
// file's `pub use` lines are its facade.
// Usage: node scripts/imports.mjs host/src [wire/src ...]   |   node scripts/imports.mjs --self-test   (no dependencies; node 18+)
import { readFileSync, readdirSync, statSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, dirname, basename, resolve } from 'node:path';

const CLIENT_CRATE = 'agent-session';

// Blanks comments and string/char literal contents (newlines kept), so paths are only found in code.
function stripCode(src) {
  let out = '';
  let i = 0;
  const n = src.length;
  const blank = (s) => s.replace(/[^\n]/g, ' ');
  while (i < n) {
    const c = src[i];
    const d = src[i + 1];
    if (c === '/' && d === '/') {
      const j = src.indexOf('\n', i);
      const end = j < 0 ? n : j;
      out += blank(src.slice(i, end));
      i = end;
    } else if (c === '/' && d === '*') {
      let depth = 1;
      let j = i + 2;
      while (j < n && depth > 0) {
        if (src[j] === '/' && src[j + 1] === '*') { depth++; j += 2; }
        else if (src[j] === '*' && src[j + 1] === '/') { depth--; j += 2; }
        else j++;
      }
      out += blank(src.slice(i, j));
      i = j;
    } else if ((c === 'r' || (c === 'b' && d === 'r')) && /^b?r#*"/.test(src.slice(i, i + 260)) && !/[A-Za-z0-9_]/.test(src[i - 1] ?? '')) {
      const m = /^b?r(#*)"/.exec(src.slice(i));
      const close = '"' + m[1];
      const j = src.indexOf(close, i + m[0].length);
      const end = j < 0 ? n : j + close.length;
      out += '""' + blank(src.slice(i + 2, end));
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      out += '""' + blank(src.slice(i + 2, j + 1));
      i = j + 1;
    } else if (c === '\'') {
      // A char literal ('x', '\n', '\u{..}'), else a lifetime ('a).
      let end = -1;
      if (d === '\\') end = src.indexOf('\'', i + 2);
      else if (src[i + 2] === '\'') end = i + 2;
      else if (d && src.codePointAt(i + 1) > 0xffff && src[i + 3] === '\'') end = i + 3;
      if (end < 0) { out += c; i++; }
      else { out += blank(src.slice(i, end + 1)); i = end + 1; }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

// From `start` (just after an attribute), the end of the item it applies to: the first `;` or the
// matching `}` of the first `{` at depth 0, after any further attributes.
function itemEnd(code, start) {
  let depth = 0;
  for (let j = start; j < code.length; j++) {
    const c = code[j];
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') {
      depth--;
      if (depth === 0 && c === '}') return j + 1;
    } else if (c === ';' && depth === 0) return j + 1;
  }
  return code.length;
}

// Removes `#[cfg(test)]` items (test modules, test-only uses and helpers); returns the names of
// test modules declared out of line (`#[cfg(test)] mod tests;`).
function stripTestItems(code) {
  const testMods = [];
  const re = /#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]/g;
  let m;
  while ((m = re.exec(code))) {
    const end = itemEnd(code, m.index + m[0].length);
    const item = code.slice(m.index + m[0].length, end);
    const decl = /^\s*(?:#\s*\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;/.exec(item);
    if (decl) testMods.push(decl[1]);
    code = code.slice(0, m.index) + item.replace(/[^\n]/g, ' ') + code.slice(end);
    re.lastIndex = m.index + 1;
  }
  return { code, testMods };
}

function rsFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...rsFiles(p));
    else if (name.endsWith('.rs')) out.push(p);
  }
  return out;
}

// The module path of a file: src/agent.rs -> [agent], src/agent/turn.rs -> [agent, turn],
// src/adapters/mod.rs -> [adapters], src/main.rs or src/lib.rs -> [].
function modulePath(srcDir, file) {
  const parts = relative(srcDir, file).replace(/\.rs$/, '').split(/[\\/]/);
  if (parts.length === 1 && (parts[0] === 'main' || parts[0] === 'lib')) return [];
  if (parts[parts.length - 1] === 'mod') parts.pop();
  return parts;
}

// The paths a piece of code names: each `use` tree expanded, plus every `crate::`/`super::`/`self::`
// path elsewhere. Each path is an array of segments starting with crate, super or self.
function pathsIn(code) {
  const paths = [];
  const useRe = /\buse\s+([^;]*);/g;
  let m;
  const expand = (prefix, tree) => {
    tree = tree.trim();
    if (!tree) return;
    const brace = tree.indexOf('{');
    if (brace < 0) {
      paths.push([...prefix, ...tree.split(/\s+as\s+/)[0].split('::').map((s) => s.trim()).filter(Boolean)]);
      return;
    }
    const head = tree.slice(0, brace).split('::').map((s) => s.trim()).filter(Boolean);
    const inner = tree.slice(brace + 1, tree.lastIndexOf('}'));
    let depth = 0, last = 0;
    for (let j = 0; j <= inner.length; j++) {
      const c = inner[j];
      if (c === '{') depth++;
      else if (c === '}') depth--;
      else if ((c === ',' && depth === 0) || j === inner.length) {
        expand([...prefix, ...head], inner.slice(last, j));
        last = j + 1;
      }
    }
  };
  const rest = code.replace(useRe, (all, tree) => {
    expand([], tree.replace(/^::/, ''));
    return all.replace(/[^\n]/g, ' ');
  });
  const pathRe = /(?<![A-Za-z0-9_:])\$?((?:crate|super|self)(?:\s*::\s*[A-Za-z_][A-Za-z0-9_]*)+)/g;
  while ((m = pathRe.exec(rest))) paths.push(m[1].split('::').map((s) => s.trim()));
  return paths;
}

// Splits a file's code into (module path, code) pieces: each inline `mod x { … }` is its own
// piece under `here` + x, blanked out of the enclosing one.
function segments(code, here) {
  const out = [];
  const re = /\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{/g;
  let m;
  while ((m = re.exec(code))) {
    const open = m.index + m[0].length - 1;
    let depth = 0, end = code.length;
    for (let j = open; j < code.length; j++) {
      if (code[j] === '{') depth++;
      else if (code[j] === '}' && --depth === 0) { end = j + 1; break; }
    }
    out.push(...segments(code.slice(open + 1, end - 1), [...here, m[1]]));
    code = code.slice(0, m.index) + code.slice(m.index, end).replace(/[^\n]/g, ' ') + code.slice(end);
    re.lastIndex = m.index + 1;
  }
  out.push({ here, code });
  return out;
}

// Resolves a path named in the module at `here` (absolute module path) to the absolute path it
// names, or null if it is not a `crate`/`super`/`self` path (or a bare path to a child module
// of `here`, which `modules` lists).
function resolveAbs(here, path, modules) {
  let at = [...here];
  let k = 0;
  if (path[0] === 'crate') { at = []; k = 1; }
  else if (path[0] === 'super' || path[0] === 'self') {
    while (path[k] === 'super') { at.pop(); k++; }
    if (path[k] === 'self') k++;
  } else if (!modules.has([...here, path[0]].join('::'))) return null;
  return [...at, ...path.slice(k)];
}

function packageDir(dir) {
  let d = resolve(dir);
  while (d !== dirname(d)) {
    if (existsSync(join(d, 'Cargo.toml'))) return d;
    d = dirname(d);
  }
  return null;
}

function checkClient(pkgDir, problems) {
  const toml = readFileSync(join(pkgDir, 'Cargo.toml'), 'utf8');
  const name = /^\s*name\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (name === CLIENT_CRATE) return;
  const dep = new RegExp(`^\\s*(?:${CLIENT_CRATE}\\s*=|.*package\\s*=\\s*"${CLIENT_CRATE}")`, 'm');
  if (dep.test(toml)) problems.push(`${relative('.', join(pkgDir, 'Cargo.toml'))}: depends on the client crate ${CLIENT_CRATE}`);
  const walk = (d) => {
    for (const e of readdirSync(d)) {
      if (e === 'target' || e === 'node_modules' || e.startsWith('.')) continue;
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith('.rs')) {
        const code = stripCode(readFileSync(p, 'utf8'));
        code.split('\n').forEach((line, i) => {
          if (/(?<![A-Za-z0-9_])agent_session\s*::/.test(line) || /\bextern\s+crate\s+agent_session\b/.test(line)) {
            problems.push(`${relative('.', p)}:${i + 1}: references the client crate (agent_session::)`);
          }
        });
      }
    }
  };
  walk(pkgDir);
}

// Tarjan's strongly connected components.
function sccs(nodes, edges) {
  let index = 0;
  const idx = new Map(), low = new Map(), on = new Set(), stack = [], out = [];
  const visit = (v) => {
    idx.set(v, index); low.set(v, index); index++;
    stack.push(v); on.add(v);
    for (const w of edges.get(v)) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const c = [];
      let w;
      do { w = stack.pop(); on.delete(w); c.push(w); } while (w !== v);
      out.push(c);
    }
  };
  for (const v of nodes) if (!idx.has(v)) visit(v);
  return out;
}

// One concrete cycle inside a strongly connected component, as a path a -> b -> ... -> a.
function cycleIn(comp, edges) {
  const inComp = new Set(comp);
  const start = [...comp].sort()[0];
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of [...edges.get(v)].sort()) {
      if (!inComp.has(w)) continue;
      if (w === start) {
        const path = [];
        for (let x = v; x !== null; x = prev.get(x)) path.unshift(x);
        return [...path, start];
      }
      if (!prev.has(w)) { prev.set(w, v); queue.push(w); }
    }
  }
  return [start];
}

// The crate source root of a directory: the nearest ancestor (or itself) holding lib.rs or main.rs.
function crateRoot(dir) {
  let d = resolve(dir);
  while (d !== dirname(d)) {
    if (existsSync(join(d, 'lib.rs')) || existsSync(join(d, 'main.rs'))) return d;
    d = dirname(d);
  }
  return null;
}

// Every file of the crate under `srcRoot` with its absolute module path, test modules left out.
function crateFiles(srcRoot) {
  const parsed = rsFiles(srcRoot).map((f) => {
    const { code, testMods } = stripTestItems(stripCode(readFileSync(f, 'utf8')));
    return { file: f, path: modulePath(srcRoot, f), code, testMods };
  });
  // Out-of-line test modules (`#[cfg(test)] mod tests;`) and `tests.rs` files are left out,
  // with every module under them.
  const testPaths = [];
  for (const p of parsed) {
    for (const t of p.testMods) testPaths.push([...p.path, t]);
  }
  const under = (path, pre) => pre.length <= path.length && pre.every((s, i) => path[i] === s);
  return parsed.filter((p) => basename(p.file) !== 'tests.rs' && !p.path.includes('tests') && !testPaths.some((t) => under(p.path, t)));
}

// Checks the module folder `prefix` (absolute module path; [] = the crate root) of a crate:
// its nodes are the folder's own file (mod.rs, lib.rs, main.rs or the sibling `x.rs`) and its
// child modules (a child folder counts as one node). Returns the problems and the layers.
function checkFolder(label, kept, prefix) {
  const n = prefix.length;
  const inside = kept.filter((p) => p.path.length >= n && prefix.every((s, i) => p.path[i] === s));
  const root = inside.find((p) => p.path.length === n);
  const rootName = root ? basename(root.file, '.rs') : 'crate';
  const kids = new Set(inside.filter((p) => p.path.length > n).map((p) => p.path[n]));
  const modules = new Set(kept.map((p) => p.path.join('::')));
  const nodes = [rootName, ...[...kids].sort()].filter((v, i, a) => a.indexOf(v) === i);
  const edges = new Map(nodes.map((v) => [v, new Set()]));
  const why = new Map();
  // The folder file's re-exports (`pub use`, `pub(crate) use`, …, of `child::Name` or
  // `child::*`): a name it re-exports counts as the child that defines it.
  const explicit = new Map();
  const globs = [];
  const isFacade = /\bpub(?:\s*\([^)]*\))?\s+use\s+([^;]*);/g;
  for (const m of (root?.code ?? '').matchAll(isFacade)) {
    const paths = pathsIn(`use ${m[1]};`);
    for (const path of paths) {
      const full = resolveAbs(prefix, path, modules) ?? (kids.has(path[0]) ? [...prefix, ...path] : null);
      if (!full || full.length <= n + 1 || !prefix.every((s, i) => full[i] === s) || !kids.has(full[n])) continue;
      const last = full[full.length - 1];
      if (last === '*') globs.push(full[n]);
      else explicit.set(last, full[n]);
    }
    // `as` renames: the new name is the one others use.
    for (const r of m[1].matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s+as\s+([A-Za-z_][A-Za-z0-9_]*)/g)) {
      const home = explicit.get(r[1]);
      if (home) explicit.set(r[2], home);
    }
  }
  const defs = new Map();
  const defined = (mod, name) => {
    if (!defs.has(mod)) {
      const names = new Set();
      for (const q of inside.filter((q) => q.path[n] === mod)) {
        for (const d of q.code.matchAll(/\b(?:struct|enum|fn|type|const|static|trait|union|mod)\s+([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(d[1]);
      }
      defs.set(mod, names);
    }
    return defs.get(mod).has(name);
  };
  const nodeOf = (full) => {
    if (full.length < n || !prefix.every((s, i) => full[i] === s)) return null;
    if (full.length === n) return rootName;
    const head = full[n];
    if (kids.has(head)) return head;
    return explicit.get(head) ?? globs.find((g) => defined(g, head)) ?? rootName;
  };
  for (const p of inside) {
    const from = p.path.length === n ? rootName : p.path[n];
    const add = (to, what) => {
      if (to === null || to === from) return;
      edges.get(from).add(to);
      const k = `${from}->${to}`;
      if (!why.has(k)) why.set(k, `${relative('.', p.file)}: ${what}`);
    };
    // The folder file's `mod` and `pub use` lines are the folder's facade, not imports.
    const code = p.path.length === n ? p.code.replace(isFacade, (u) => u.replace(/[^\n]/g, ' ')) : p.code;
    for (const seg of segments(code, p.path)) {
      for (const path of pathsIn(seg.code)) {
        const full = resolveAbs(seg.here, path, modules);
        if (full) add(nodeOf(full), path.join('::'));
      }
      // A bare `child::…` path outside `use` names a child module of the piece's module.
      for (const m of seg.code.matchAll(/(?<![A-Za-z0-9_:])([a-z_][a-z0-9_]*)\s*::/g)) {
        if (modules.has([...seg.here, m[1]].join('::'))) add(nodeOf([...seg.here, m[1]]), `${m[1]}::`);
      }
    }
  }
  const problems = [];
  const cyclic = sccs(nodes, edges).filter((c) => c.length > 1);
  for (const c of cyclic) {
    const cyc = cycleIn(c, edges);
    const steps = cyc.slice(1).map((to, i) => `    ${cyc[i]} -> ${to}   (${why.get(`${cyc[i]}->${to}`)})`);
    problems.push(`${label}: module cycle among {${c.sort().join(', ')}}:\n${steps.join('\n')}`);
  }
  if (problems.length) return { problems, lines: [] };
  // Layer of a module: 0 if it imports nothing in the folder, else one above its highest import.
  const layer = new Map();
  const layerOf = (v) => {
    if (!layer.has(v)) layer.set(v, Math.max(-1, ...[...edges.get(v)].map(layerOf)) + 1);
    return layer.get(v);
  };
  nodes.forEach(layerOf);
  const top = Math.max(...layer.values());
  const lines = [`${label}: ${nodes.length} modules, no import cycle; layers (each imports only from below):`];
  for (let l = top; l >= 0; l--) {
    lines.push(`  ${String(l).padStart(2)}  ${nodes.filter((v) => layer.get(v) === l).sort().join(' ')}`);
  }
  return { problems, lines };
}

// Checks `dir` and every module folder under it.
function checkCrate(dir) {
  const srcRoot = crateRoot(dir);
  if (!srcRoot) {
    console.log(`${dir}: FAILED\n  no lib.rs or main.rs at or above it`);
    return false;
  }
  const kept = crateFiles(srcRoot);
  const base = relative(srcRoot, resolve(dir)).split(/[\\/]/).filter(Boolean);
  // The module folders at or under `dir` that hold a kept module (a folder of only test files
  // is left out).
  const folders = new Map();
  for (const p of kept) {
    if (p.path.length <= base.length || !base.every((s, i) => p.path[i] === s)) {
      if (p.path.length === base.length && base.every((s, i) => p.path[i] === s)) folders.set(base.join('/'), base);
      continue;
    }
    for (let k = base.length; k < p.path.length; k++) {
      const pre = p.path.slice(0, k);
      folders.set(pre.join('/'), pre);
    }
  }
  const problems = [];
  const lines = [];
  for (const key of [...folders.keys()].sort()) {
    const pre = folders.get(key);
    const label = relative('.', join(srcRoot, ...pre)) || '.';
    const r = checkFolder(label, kept, pre);
    problems.push(...r.problems);
    lines.push(...r.lines);
  }
  const pkg = packageDir(srcRoot);
  if (pkg) checkClient(pkg, problems);
  if (problems.length) {
    console.log(`${dir}: FAILED`);
    for (const p of problems) console.log(`  ${p}`);
    return false;
  }
  console.log(`${dir}: ${folders.size} module folder(s), no import cycle`);
  for (const l of lines) console.log(`  ${l}`);
  return true;
}

// `--self-test`: the checker on small crates written under target/ — a circle two folders
// down and one through a folder file's re-export must fail, a facade `pub use` must not.
function selfTest() {
  const base = join('target', 'imports-self-test');
  const crate = (name, files) => {
    const dir = join(base, name);
    rmSync(dir, { recursive: true, force: true });
    for (const [f, text] of Object.entries({ 'Cargo.toml': `[package]\nname = "${name}"\n`, ...files })) {
      mkdirSync(dirname(join(dir, f)), { recursive: true });
      writeFileSync(join(dir, f), text);
    }
    return join(dir, 'src');
  };
  const facade = { 'src/lib.rs': 'mod a;\n', 'src/a/mod.rs': 'mod x;\nmod y;\npub use x::X;\n', 'src/a/x.rs': 'pub struct X;\n', 'src/a/y.rs': 'use super::X;\npub struct Y;\n' };
  const cases = [
    ['facade', facade, true],
    ['reexport-circle', { ...facade, 'src/a/x.rs': 'use super::y::Y;\npub struct X;\n' }, false],
    ['deep-circle', { ...facade, 'src/a/mod.rs': 'mod x;\nmod y;\nmod deep;\npub use x::X;\n', 'src/a/deep/mod.rs': 'mod p;\nmod q;\n', 'src/a/deep/p.rs': 'use super::q::Q;\npub struct P;\n', 'src/a/deep/q.rs': 'use crate::a::deep::p::P;\npub struct Q;\n' }, false],
  ];
  let ok = true;
  for (const [name, files, want] of cases) {
    const got = checkCrate(crate(name, files));
    if (got !== want) { console.log(`self-test ${name}: expected ${want ? 'no cycle' : 'a cycle'}`); ok = false; }
  }
  rmSync(base, { recursive: true, force: true });
  console.log(ok ? 'imports.mjs self-test: ok (a facade passes, circles through a re-export and two folders down fail)' : 'imports.mjs self-test: FAILED');
  return ok;
}

if (process.argv[2] === '--self-test') process.exit(selfTest() ? 0 : 1);

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('usage: node scripts/imports.mjs <crate src dir>...   e.g. host/src wire/src');
  process.exit(2);
}
let ok = true;
for (const d of dirs) ok = checkCrate(d) && ok;
process.exit(ok ? 0 : 1);
