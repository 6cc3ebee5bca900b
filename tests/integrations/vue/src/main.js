import { createApp } from 'vue'
import init from 'agent-session'
import App from './App.vue'

await init()
createApp(App).mount('#root')
