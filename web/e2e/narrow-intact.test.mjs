// Every screen at 320 px in both languages, for intact (narrow.mjs).
import { narrowSuites } from './narrow.mjs';

narrowSuites([
  { brand: 'intact', language: 'en', query: '?province=on&lang=en', email: 'demo@intact.example' },
  { brand: 'intact', language: 'fr', query: '?province=qc&lang=fr', email: 'demo@intact.example' },
]);
