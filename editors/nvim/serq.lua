-- serQ in Neovim (0.8 or later). Put editors/vim on the runtimepath for the
-- filetype and the syntax (editors/README.md), then source this file from
-- your init.lua, or copy it there, to start `serq lsp` for *.sq buffers:
-- diagnostics, hover (K), go to definition (gd with the usual mappings),
-- document symbols, formatting (vim.lsp.buf.format) and completion.
vim.filetype.add({ extension = { sq = "serq" } })

vim.api.nvim_create_autocmd("FileType", {
  pattern = "serq",
  callback = function(args)
    vim.lsp.start({
      name = "serq",
      cmd = { "serq", "lsp" },
      root_dir = vim.fs.dirname(vim.fs.find({ "go.mod", ".git" }, { upward = true, path = vim.api.nvim_buf_get_name(args.buf) })[1] or vim.api.nvim_buf_get_name(args.buf)),
    })
  end,
})
