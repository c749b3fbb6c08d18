// Every screen at 320 px in both languages, for belair (narrow.mjs).
import { describe } from 'node:test';
import { narrowServer, narrowTests } from './narrow.mjs';

narrowServer();

describe('belair en at 320 px', () => narrowTests({ brand: 'belair', language: 'en', query: '?province=on&lang=en', email: 'demo@belair.example' }));
describe('belair fr at 320 px', () => narrowTests({ brand: 'belair', language: 'fr', query: '?province=qc&lang=fr', email: 'demo@belair.example' }));
