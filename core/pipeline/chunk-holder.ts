/** The chunk onChunk taps see (lib/content/chunk.ts), typed as the hook's Chunk: the loops that call it are generic over the format. */
import { ChunkHolder as Holder } from '../../lib/content/chunk.ts';
import type { Chunk } from '../hooks.ts';

export class ChunkHolder extends Holder {
  override next(data: string | undefined, value: unknown): this & Chunk {
    return super.next(data, value) as this & Chunk;
  }
}
