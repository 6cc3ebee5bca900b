// The browser benchmark page (bench.html, driven by scripts/bench-browser.mjs; not part of
// the demo UI): one module per benchmark, each a function the driver calls in the page.
// shared.ts installs the page's fetch tap on import, before any HostClient starts.
import { runIngest } from './ingest'
import { runOpenPaging } from './open-paging'
import { runReload } from './reload'

Object.assign(window, { runIngest, runOpenPaging, runReload })
document.getElementById('out')!.textContent = 'ready'
