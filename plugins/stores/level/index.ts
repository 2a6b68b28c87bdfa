/** The LevelDB store plugin, gw's default (no `[store] url`): level.ts. */
import { redactUrl, UserError } from 'gw/plugin';
import { defineStore } from 'gw/plugin/store';
import { openLevelStore } from './level.ts';

export default defineStore({
  name: 'level',
  shared: false,
  open({ url, dataDir }) {
    if (url !== undefined)
      throw new UserError(
        `cannot open the store [store] url = "${redactUrl(url)}": LevelDB takes no url; without [store] url the store is LevelDB under data_dir`,
      );
    return openLevelStore(dataDir);
  },
});
