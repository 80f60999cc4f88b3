-- serQ in Neovim (0.8 or later). Put editors/vim on the runtimepath for the
-- filetype and the syntax (editors/README.md), then source this file from
-- your init.lua, or copy it there, to start `serq lsp` for *.sq buffers.
-- This serq does not have the `lsp` command yet: until it does, the client
-- exits at once and the syntax highlighting is all you get.
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
