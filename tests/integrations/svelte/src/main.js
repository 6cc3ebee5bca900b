import { mount } from 'svelte'
import init from 'agent-session'
import App from './App.svelte'

await init()
mount(App, { target: document.getElementById('root') })
