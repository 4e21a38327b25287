;;; eglot_recipe.el --- Drive eglot as a user would, after the recipe of docs/editors.md  -*- lexical-binding: t -*-

;; emacs --batch -q --eval "(package-activate-all)" -l RECIPE.el -l tests/editors/eglot_recipe.el NOTE LINK
;;
;; Visits NOTE, lets the command loop's post-command-hook run once (where `eglot-ensure'
;; connects), else runs M-x eglot's own guess, waits for the server's `memlsp/indexed', then asks
;; for the definition of the wikilink LINK (its text, found in NOTE) and for `memlsp/status', and
;; asks to rename LINK's note (this eglot announces no file renames: the answer is why not).
;; Prints one JSON line on stdout: {"attached", "project_root", "definition": [{"path", "line"}],
;; "status", "rename", "error"}.  Every wait is bounded; the test reads the line and decides.

(require 'cl-lib)
(require 'json)

(defconst memlsp-test-start-seconds 20)
(defconst memlsp-test-index-seconds 60)

(defvar memlsp-test-indexed nil)

(with-eval-after-load 'eglot
  (cl-defmethod eglot-handle-notification
    (_server (_method (eql memlsp/indexed)) &rest _params)
    (setq memlsp-test-indexed t)))

(defun memlsp-test-wait (seconds predicate)
  "Run the event loop until PREDICATE holds, for SECONDS at most; PREDICATE's value."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(defun memlsp-test-location (location)
  (let ((uri (or (plist-get location :uri) (plist-get location :targetUri)))
        (range (or (plist-get location :range) (plist-get location :targetSelectionRange))))
    (list :path (eglot--uri-to-path uri)
          :line (plist-get (plist-get range :start) :line))))

(defun memlsp-test-locations (result)
  (cond ((null result) [])
        ((or (plist-get result :uri) (plist-get result :targetUri))
         (vector (memlsp-test-location result)))
        (t (vconcat (mapcar #'memlsp-test-location result)))))

(defun memlsp-test-run (note link)
  (let ((report (list :attached :json-false)) server)
    (condition-case failure
        (progn
          (find-file note)
          (unless (derived-mode-p 'markdown-mode)
            (error "%s opened in %s, not markdown-mode" note major-mode))
          (require 'eglot)
          (run-hooks 'post-command-hook)
          (unless (memlsp-test-wait 1 #'eglot-current-server)
            (apply #'eglot (eglot--guess-contact)))
          (setq server (memlsp-test-wait memlsp-test-start-seconds #'eglot-current-server))
          (unless server (error "eglot started no server"))
          (setq report (list :attached t
                             :project_root (expand-file-name (project-root (eglot--project server)))))
          (unless (memlsp-test-wait memlsp-test-index-seconds (lambda () memlsp-test-indexed))
            (error "no memlsp/indexed notification"))
          (goto-char (point-min))
          (search-forward link)
          (goto-char (+ (match-beginning 0) 3))
          (setq report
                (append report
                        (list :definition
                              (memlsp-test-locations
                               (jsonrpc-request server :textDocument/definition
                                                (eglot--TextDocumentPositionParams)))
                              :status (jsonrpc-request server :memlsp/status
                                                       (make-hash-table))
                              :rename
                              (condition-case refused
                                  (progn
                                    (jsonrpc-request server :textDocument/rename
                                                     (append (eglot--TextDocumentPositionParams)
                                                             (list :newName "renamed")))
                                    "an edit")
                                (jsonrpc-error (error-message-string refused)))))))
      (error (setq report (append report (list :error (error-message-string failure))))))
    (princ (json-encode report))
    (terpri)
    (when server
      (ignore-errors (eglot-shutdown server)))
    (kill-emacs 0)))

(memlsp-test-run (pop command-line-args-left) (pop command-line-args-left))

;;; eglot_recipe.el ends here
