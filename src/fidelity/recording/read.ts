import fs from 'node:fs';
import { UserError } from '../../errors.js';
import { isRecord, parseJson } from '../json.js';
import type { RecordedExchange } from '../proxy/record-file.js';

/** One exchange of a recording, with its line (for messages). */
export interface RecordingLine {
  line: number;
  exchange: RecordedExchange;
}

/**
 * The exchanges of a recording (`svc proxy --record`), in order. A line that is not a recorded
 * exchange is an error naming it (a recording that was cut off mid-line, or another file).
 */
export function readRecording(file: string, shown: string): RecordingLine[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    throw new UserError(`${shown}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`}`, 'recording_not_found');
  }
  const out: RecordingLine[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    const value = parseJson(raw);
    if (!isExchange(value)) {
      throw new UserError(`${shown}:${i + 1}: not a recorded exchange (one JSON line of svc proxy --record per exchange)`, 'recording_invalid');
    }
    out.push({ line: i + 1, exchange: value });
  }
  return out;
}

function isExchange(value: unknown): value is RecordedExchange {
  if (!isRecord(value) || !isRecord(value.request) || !isRecord(value.response)) return false;
  const { request, response } = value;
  return (
    typeof request.method === 'string' &&
    typeof request.path === 'string' &&
    (request.body === null || typeof request.body === 'string') &&
    typeof response.status === 'number' &&
    typeof response.body === 'string'
  );
}
