// The JupyterLab 4 plugin: registers the language `grundy` (mimetype
// text/x-grundy, the kernel's language_info; files *.game) with the
// editor language registry, so code cells of grundy notebooks and rule
// files opened in the editor are highlighted.
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { LanguageSupport, StreamLanguage } from '@codemirror/language';
import { grundy } from './grundy';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'grundy-jupyterlab:language',
  description: 'Highlighting of grundy code (cells of the grundy kernel, .game files).',
  autoStart: true,
  requires: [IEditorLanguageRegistry],
  activate: (_app: JupyterFrontEnd, languages: IEditorLanguageRegistry) => {
    languages.addLanguage({
      name: 'grundy',
      displayName: 'grundy',
      mime: 'text/x-grundy',
      extensions: ['game'],
      support: new LanguageSupport(StreamLanguage.define(grundy))
    });
  }
};

export default plugin;
