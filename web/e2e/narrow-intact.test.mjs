// Every screen at 320 px in both languages, for intact (narrow.mjs).
import { describe } from 'node:test';
import { narrowServer, narrowTests } from './narrow.mjs';

narrowServer();

describe('intact en at 320 px', () => narrowTests({ brand: 'intact', language: 'en', query: '?province=on&lang=en', email: 'demo@intact.example' }));
describe('intact fr at 320 px', () => narrowTests({ brand: 'intact', language: 'fr', query: '?province=qc&lang=fr', email: 'demo@intact.example' }));
