using System.Collections.Immutable;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace Prewire.Build;

/// <summary>
/// What a NativeAOT binary is made of, per assembly, read from the <c>.mstat</c> file ILC writes with
/// <c>IlcGenerateMstatFile</c> (build/NativeAot.props sets it for the apps). The file is an ECMA-335
/// assembly whose global methods hold the data as IL: "Types" is <c>ldtoken type; ldc.i4 size;
/// ldc.i4 name</c> per type, "Methods" <c>ldtoken method; ldc.i4 code; ldc.i4 gcinfo; ldc.i4 ehinfo;
/// ldc.i4 name</c> per method body, "Blobs" <c>ldstr node; ldc.i4 size</c> for everything else
/// (metadata for reflection, hashtables, frozen objects, resources), "RvaFields" <c>ldtoken field;
/// ldc.i4 size; ldc.i4 name</c> per field with data in the image (a <c>u8</c> literal, an array
/// initializer's bytes), counted for the field's assembly instead of the "FieldRvaData" blob. A generic instantiation counts
/// for the assembly that defines the generic type (<c>List&lt;Prewire.X&gt;</c> is CoreLib's). Type
/// structures are stored compressed ("DehydratedData", expanded at start-up): each assembly's share
/// of that blob is its share of the expanded sizes. <see cref="ByCause"/> counts the same bytes for
/// the code that asked for them instead: an instantiation for its last type argument from outside
/// CoreLib (<c>AsyncStateMachineBox&lt;…, Http2Connection.&lt;SendAsync&gt;d&gt;</c> is System.Net.Http's),
/// System.Net.Http split by protocol, so a build's growth can be laid at the feature that caused it.
/// </summary>
public sealed record Mstat(IReadOnlyDictionary<string, long> ByAssembly, IReadOnlyDictionary<string, long> ByCause, long Blobs)
{
    private const string Dehydrated = "DehydratedData";
    private const string FieldRvaData = "FieldRvaData";

    /// <summary>Bytes of compiled managed code and type structures, all assemblies.</summary>
    public long Managed => ByAssembly.Values.Sum();

    public static Mstat Read(string path)
    {
        using var pe = new PEReader(File.OpenRead(path));
        var reader = pe.GetMetadataReader();
        var owner = new OwnerProvider(reader, byCause: false);
        var cause = new OwnerProvider(reader, byCause: true);
        var code = new Dictionary<string, long>(StringComparer.Ordinal);
        var types = new Dictionary<string, long>(StringComparer.Ordinal);
        var causedCode = new Dictionary<string, long>(StringComparer.Ordinal);
        var causedTypes = new Dictionary<string, long>(StringComparer.Ordinal);
        var blobs = new Dictionary<string, long>(StringComparer.Ordinal);
        var rvaData = 0L;
        var global = reader.GetTypeDefinition(MetadataTokens.TypeDefinitionHandle(1));
        foreach (var handle in global.GetMethods())
        {
            var method = reader.GetMethodDefinition(handle);
            var il = pe.GetMethodBody(method.RelativeVirtualAddress).GetILReader();
            switch (reader.GetString(method.Name))
            {
                case "Types":
                    ReadEntries(ref il, sizes: 1, owner, cause, types, causedTypes);
                    break;
                case "Methods":
                    // Code, GC info and EH info.
                    ReadEntries(ref il, sizes: 3, owner, cause, code, causedCode);
                    break;
                case "RvaFields":
                    rvaData += ReadEntries(ref il, sizes: 1, owner, cause, code, causedCode);
                    break;
                case "Blobs":
                    while (il.RemainingBytes > 0)
                    {
                        Expect(ref il, ILOpCode.Ldstr);
                        var node = reader.GetUserString(MetadataTokens.UserStringHandle(il.ReadInt32() & 0xFFFFFF));
                        Add(blobs, node, ReadInt32(ref il));
                    }
                    break;
            }
        }
        var dehydrated = blobs.Remove(Dehydrated, out var packed) ? packed : types.Values.Sum();
        var scale = types.Count == 0 ? 0 : (double)dehydrated / types.Values.Sum();
        foreach (var (assembly, bytes) in types) Add(code, assembly, (long)(bytes * scale));
        foreach (var (assembly, bytes) in causedTypes) Add(causedCode, assembly, (long)(bytes * scale));
        // The fields' data is counted for their assemblies above; the blob holds the same bytes.
        if (blobs.TryGetValue(FieldRvaData, out var rvaBlob)) blobs[FieldRvaData] = Math.Max(0, rvaBlob - rvaData);
        return new Mstat(code, causedCode, blobs.Values.Sum());
    }

    // Entries of "ldtoken x; ldc.i4 size (× sizes); ldc.i4 name", each counted for x's owner and cause; returns the bytes.
    private static long ReadEntries(ref BlobReader il, int sizes, OwnerProvider owner, OwnerProvider cause, Dictionary<string, long> byOwner, Dictionary<string, long> byCause)
    {
        var total = 0L;
        while (il.RemainingBytes > 0)
        {
            var token = ReadToken(ref il);
            var size = 0;
            for (var i = 0; i < sizes; i++) size += ReadInt32(ref il);
            Add(byOwner, owner.Of(token), size);
            Add(byCause, cause.Of(token), size);
            ReadInt32(ref il);
            total += size;
        }
        return total;
    }

    private static void Add(Dictionary<string, long> sizes, string key, long bytes) => sizes[key] = sizes.GetValueOrDefault(key) + bytes;

    private static EntityHandle ReadToken(ref BlobReader il)
    {
        Expect(ref il, ILOpCode.Ldtoken);
        return MetadataTokens.EntityHandle(il.ReadInt32());
    }

    // ILC writes each number in the shortest ldc.i4 form.
    private static int ReadInt32(ref BlobReader il) => (ILOpCode)il.ReadByte() switch
    {
        >= ILOpCode.Ldc_i4_m1 and <= ILOpCode.Ldc_i4_8 and var small => small - ILOpCode.Ldc_i4_0,
        ILOpCode.Ldc_i4_s => il.ReadSByte(),
        ILOpCode.Ldc_i4 => il.ReadInt32(),
        var other => throw new InvalidDataException($"unexpected opcode {other} in an mstat number"),
    };

    private static void Expect(ref BlobReader il, ILOpCode opCode)
    {
        var read = (ILOpCode)il.ReadByte();
        if (read != opCode) throw new InvalidDataException($"expected {opCode} in the mstat file, found {read}");
    }

    /// <summary>
    /// The assembly a type, method or instantiation belongs to; <paramref name="byCause"/>: the one that
    /// asked for it (see <see cref="ByCause"/>).
    /// </summary>
    private sealed class OwnerProvider(MetadataReader reader, bool byCause) : ISignatureTypeProvider<string, object?>
    {
        private const string CoreLib = "System.Private.CoreLib";
        private const string Http = "System.Net.Http";

        public string Of(EntityHandle handle) => handle.Kind switch
        {
            HandleKind.TypeReference => GetTypeFromReference(reader, (TypeReferenceHandle)handle, 0),
            HandleKind.TypeSpecification => reader.GetTypeSpecification((TypeSpecificationHandle)handle).DecodeSignature(this, null),
            HandleKind.MemberReference => Of(reader.GetMemberReference((MemberReferenceHandle)handle).Parent),
            HandleKind.MethodSpecification => OfInstantiation(reader.GetMethodSpecification((MethodSpecificationHandle)handle)),
            _ => "(other)",
        };

        // A generic method's instantiation: the method's owner, or by cause its type arguments' (see Caller).
        private string OfInstantiation(MethodSpecification method) =>
            byCause ? Caller(method.DecodeSignature(this, null), Of(method.Method)) : Of(method.Method);

        public string GetTypeFromReference(MetadataReader metadata, TypeReferenceHandle handle, byte rawTypeKind)
        {
            var type = reader.GetTypeReference(handle);
            var scope = type.ResolutionScope;
            return scope.Kind switch
            {
                HandleKind.AssemblyReference => reader.GetString(reader.GetAssemblyReference((AssemblyReferenceHandle)scope).Name) is var assembly && byCause && assembly == Http
                    ? HttpPart(reader.GetString(type.Name))
                    : assembly,
                // A nested type: its enclosing type's assembly.
                HandleKind.TypeReference => GetTypeFromReference(metadata, (TypeReferenceHandle)scope, rawTypeKind),
                _ => "(other)",
            };
        }

        public string GetTypeFromSpecification(MetadataReader metadata, object? context, TypeSpecificationHandle handle, byte rawTypeKind) =>
            reader.GetTypeSpecification(handle).DecodeSignature(this, context);

        public string GetTypeFromDefinition(MetadataReader metadata, TypeDefinitionHandle handle, byte rawTypeKind) => "(other)";

        public string GetGenericInstantiation(string genericType, ImmutableArray<string> typeArguments) =>
            byCause ? Caller(typeArguments, genericType) : genericType;

        // The last type argument from outside CoreLib: List<int> is CoreLib's, Box<T, Http2Stream.<X>d> HTTP/2's.
        private static string Caller(ImmutableArray<string> typeArguments, string otherwise)
        {
            for (var i = typeArguments.Length - 1; i >= 0; i--)
            {
                if (typeArguments[i] != CoreLib) return typeArguments[i];
            }
            return otherwise;
        }

        // By the outermost type's name (a nested type's enclosing type is resolved first).
        private static string HttpPart(string type) =>
            type.Contains("Http2", StringComparison.Ordinal) || type.Contains("Hpack", StringComparison.Ordinal) ? $"{Http}: HTTP/2"
            : type.Contains("Http3", StringComparison.Ordinal) || type.Contains("QPack", StringComparison.Ordinal) || type.Contains("Quic", StringComparison.Ordinal) ? $"{Http}: HTTP/3"
            : $"{Http}: HTTP/1.1 and shared";

        public string GetSZArrayType(string elementType) => elementType;

        public string GetArrayType(string elementType, ArrayShape shape) => elementType;

        public string GetPointerType(string elementType) => elementType;

        public string GetByReferenceType(string elementType) => elementType;

        public string GetPinnedType(string elementType) => elementType;

        public string GetModifiedType(string modifier, string unmodifiedType, bool isRequired) => unmodifiedType;

        public string GetPrimitiveType(PrimitiveTypeCode typeCode) => CoreLib;

        public string GetFunctionPointerType(MethodSignature<string> signature) => CoreLib;

        public string GetGenericMethodParameter(object? genericContext, int index) => CoreLib;

        public string GetGenericTypeParameter(object? genericContext, int index) => CoreLib;
    }
}
