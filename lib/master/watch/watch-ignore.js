// What a watched app ignores: superd's defaults plus the app's ignore_watch (added to the
// defaults, never replacing them: PM2 #5016), plus the app's own log files.
// chokidar >= 4 takes no globs, so patterns are matched here with picomatch (the glob
// matcher of chokidar's own ecosystem: braces {a,b}, classes [ab], extglobs, dotfiles):
//   a pattern without "/" matches any path segment:  node_modules, .git, *.log, *.{tmp,bak}
//   a pattern with "/" matches the path relative to a watched root (or an absolute path):
//     dist/**, config/local.json, /srv/app/cache
import path from 'node:path';
import picomatch from 'picomatch';

export const DEFAULT_IGNORE = Object.freeze(['node_modules', '.git', '*.log']);

/** dot: hidden files and directories are matched like any other. */
const glob = (pattern) => picomatch(pattern, { dot: true });

/**
 * @param {object} o
 * @param {string[]} o.roots     absolute watched paths
 * @param {string[]} [o.patterns]  the app's ignore_watch
 * @param {string[]} [o.files]   absolute paths always ignored (the app's log files, SUPER_HOME)
 * @returns {(file: string) => boolean}  true = ignore (file is absolute)
 */
export function makeIgnore({ roots, patterns = [], files = [] }) {
  const all = [...DEFAULT_IGNORE, ...patterns.map((p) => p.replace(/\/+$/, ''))];
  const segment = all.filter((p) => !p.includes('/')).map(glob);
  const anchored = all.filter((p) => p.includes('/')).map((p) => ({ abs: path.isAbsolute(p), match: glob(p.replace(/^\.\//, '')) }));
  const exact = files.map((f) => path.resolve(f));
  return (file) => {
    if (exact.some((f) => file === f || file.startsWith(`${f}${path.sep}`))) return true;
    for (const root of roots) {
      if (file !== root && !file.startsWith(`${root}${path.sep}`)) continue;
      const rel = path.relative(root, file);
      if (rel === '') continue;
      const parts = rel.split(path.sep);
      if (parts.some((s) => segment.some((match) => match(s)))) return true;
      // A directory pattern also covers what is inside it.
      for (const { abs, match } of anchored) {
        const subject = abs ? file : rel;
        const segs = subject.split('/');
        for (let n = segs.length; n > 0; n--) if (match(segs.slice(0, n).join('/'))) return true;
      }
    }
    return false;
  };
}
