// @vitest-environment jsdom
import { test } from 'vitest'
import { conversationFlow } from './flow'

test('the README component connects, creates a session and streams a reply under jsdom', conversationFlow)
