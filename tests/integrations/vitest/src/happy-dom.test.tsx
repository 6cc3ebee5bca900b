// @vitest-environment happy-dom
import { test } from 'vitest'
import { conversationFlow } from './flow'

test('the README component connects, creates a session and streams a reply under happy-dom', conversationFlow)
