// Every screen at 320 px in both languages, for belair (narrow.mjs).
import { narrowSuites } from './narrow.mjs';

narrowSuites([
  { brand: 'belair', language: 'en', query: '?province=on&lang=en', email: 'demo@belair.example' },
  { brand: 'belair', language: 'fr', query: '?province=qc&lang=fr', email: 'demo@belair.example' },
]);
