import { afterAll } from 'vitest';
import { endChildren } from '../helpers/children.js';

// Every test file: what it started and did not end (a hook cut short by its time limit) ends with it.
afterAll(endChildren);
